"""The dashboard's pure half: data, filters, figures, selections, exports; no Streamlit here."""
