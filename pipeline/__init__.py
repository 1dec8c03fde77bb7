"""Topic Explorer's pipeline: a corpus of abstracts in, a topic build folder out.

Importing this package is cheap: heavy libraries (torch, sentence-transformers, UMAP,
BERTopic) load only inside the steps that need them, so the dashboard can read builds
through `pipeline.buildfolder.read` without paying for them.
"""

__version__ = "0.1.0"
