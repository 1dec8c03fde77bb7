"""What a build looks like wherever it is shown: the dashboard and the HTML map page alike (pure, no Streamlit).

Levels of detail over the topic tree, the topics' colours, and the paper page each identifier links to.
"""
