"""What a build shares with people and other tools, the same from the dashboard and the command line.

Export files (tables, BibTeX and RIS for reference managers, the map as one offline HTML page), and the pure
pieces the dashboard shows the same way: levels of detail, topic colours, paper links, the map's sample.
"""
