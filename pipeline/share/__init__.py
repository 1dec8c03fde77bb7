"""What a build shares with people and other tools, the same from the dashboard and the command line.

Export files: tables, BibTeX and RIS for reference managers, the map as one offline HTML page, for the papers a
selection holds. How the build looks where it is shown (levels, colours, links) is in `pipeline.view`.
"""
