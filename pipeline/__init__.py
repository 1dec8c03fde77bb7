"""Topic Explorer's pipeline: a corpus of abstracts in, a topic build folder out.

A sub-package per part, read in this order: ingest -> embed -> fit -> describe -> map -> apply -> evaluate,
written by `buildfolder`; `run` calls them in order (build, add), `cli` is on top; `settings`, `errors`,
`timing` and the result cache (`cache`) are the shared bottom. `export` writes exports, `view` holds how a
build looks wherever it is shown, `search` ranks papers for a query (docs/how-it-works.md).

Importing this package is cheap: heavy libraries (torch, sentence-transformers, UMAP,
BERTopic) load only inside the steps that need them, so the dashboard can read builds
through `pipeline.buildfolder.read` without paying for them.
"""

import os
from importlib import metadata

# Nothing is ever downloaded: the model ships in a package. Set before any step imports huggingface_hub, which
# reads these once at import (BERTopic.load otherwise asks the hub for the model its saved config names, and
# on a closed network retries with back-off for minutes).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

__version__ = metadata.version("topic-explorer")  # one home: pyproject.toml's, as installed
