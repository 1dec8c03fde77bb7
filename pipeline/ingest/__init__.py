"""Reading input files into papers: formats, columns, cleaning, duplicates."""
