"""The build folder's contract, shared by the pipeline and the dashboard.

Its schema, reading, writing, checking, atomic replacement, edits, exchange columns and metadata types.
"""
