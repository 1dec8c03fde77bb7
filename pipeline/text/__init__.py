"""Text helpers shared by every part: cleaning LaTeX and markup, acronyms."""
