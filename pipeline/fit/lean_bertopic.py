"""BERTopic without the language-model packages it loads for features the pipeline never uses.

`import bertopic` imports sentence-transformers, transformers and torch for its own embedding backends and its
text-generation and multimodal representations, and `BERTopic.load` builds a SentenceTransformer from the name
in the model's config. The pipeline calls none of them: a build embeds with its own embedder, and BERTopic only
fits, saves and loads around our sub-models. Those packages hold about 280 MiB of a process's memory (resident,
on this machine: 342 MiB with BERTopic imported without them, 626 with), which a TF-IDF build, which never needs
torch, would carry from its clustering to its end.

Kept out, importing them raises ModuleNotFoundError for that moment, which BERTopic takes for its lightweight
install: its optional backends report themselves not installed. They are kept out by an import finder, not by None
entries in `sys.modules`, which libraries that look for torch there (scipy's array API support) would read as a
module. They stay importable afterwards, so a MiniLM embedder imports them as it always did; in a process where
they are already loaded, nothing is kept out.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.abc import MetaPathFinder

LANGUAGE_MODEL_PACKAGES = ("sentence_transformers", "transformers", "torch")


@contextmanager
def without_language_models() -> Iterator[None]:
    """Meanwhile, importing `LANGUAGE_MODEL_PACKAGES` not loaded yet raises ModuleNotFoundError."""
    finder = _KeptOut([name for name in LANGUAGE_MODEL_PACKAGES if name not in sys.modules])
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def import_bertopic() -> None:
    """Import BERTopic without the language-model packages, once, at the start of a command that fits or loads
    it (`build`, `add`): a later `import bertopic` anywhere in the process finds it imported."""
    if "bertopic" in sys.modules:
        return
    with without_language_models():
        import bertopic  # noqa: F401


class _KeptOut(MetaPathFinder):
    """An import finder that finds `packages` (and their modules) missing, before any other finder looks."""

    def __init__(self, packages: Sequence[str]):
        self.packages = frozenset(packages)

    def find_spec(self, fullname: str, path=None, target=None) -> None:
        if fullname.partition(".")[0] in self.packages:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None
