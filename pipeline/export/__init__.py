"""Exports: what a build gives people and other tools, the same from the dashboard and the command line.

The files: tables, BibTeX and RIS for reference managers, the map as one offline HTML page, for the papers a
selection holds. How the build looks where it is shown (levels, colours, links) is in `pipeline.view`.
"""
