"""The dashboard's Streamlit half: each module draws one part of the page from the pure half."""
