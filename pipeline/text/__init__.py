"""Text helpers shared by every stage: cleaning LaTeX and markup, acronyms."""
