"""Text clean-up shared by titles and keywords: LaTeX, markdown, citations, contractions, stop words.

Abstracts arrive with LaTeX (`$\\mathbf{S}$`, `\\texttt{...}`), markdown (`*JME*`) and
citation debris (`[12]`, `et al.`); none of it should reach a title or a keyword.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

# Words every abstract uses; as keywords they say nothing about a topic.
ACADEMIC_STOP_WORDS = frozenset(
    """
    abstract achieve achieved achieves achieving additionally address addresses addressing
    al approach approaches available based benchmark benchmarks better challenge challenges
    challenging code com compared comprehensive critical crucial demonstrate demonstrated
    demonstrates despite effective effectively effectiveness enable enables enabling ensure
    ensures ensuring establish established establishes et existing experiment experimental
    experiments extensive extensively finally furthermore github http https ie eg ii iii
    important impressive improve improved improvement improvements improves improving iv
    introduce introduced introduces key leverage leverages leveraging method methods
    moreover notably novel outperform outperforming outperforms overall paper papers
    particular particularly perform performance performs powerful present presents prior
    promising propose proposed proposes provide provides recent recently remain remains
    remarkable result results shown shows significant significantly specifically strong
    study studies superior typically use used uses using various via wide widely wise work
    works www yield yields
    """.split()
)
# scikit-learn's list drops words that carry meaning in papers ("few-shot", "top-k", "system").
KEPT_WORDS = frozenset("few system top bottom full interest fire bill front side move".split())
STOP_WORDS = (frozenset(ENGLISH_STOP_WORDS) - KEPT_WORDS) | ACADEMIC_STOP_WORDS

# A token is a run of letters or digits holding at least one letter ("3d", "gpt4", "lora"), a single letter too: the
# "k" of "k-means" and the "t" of "t-SNE" (hyphens become spaces) belong to the phrases that name topics.
TOKEN_PATTERN = r"(?u)\b[0-9]*[^\W\d_][^\W_]*\b"

_INLINE_MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$", re.DOTALL)
_LATEX_WITH_ARG = re.compile(r"\\[a-zA-Z]+\*?\s*\{([^{}]*)\}")
_LATEX_CITE = re.compile(r"\\(?:cite[a-z]*|ref|eqref|label|url|footnote)\*?\s*\{[^{}]*\}")
_LATEX_COMMAND = re.compile(r"\\[a-zA-Z]+\*?")
_LATEX_ESCAPE = re.compile(r"\\+([%&_#$])")
_MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_MD_EMPHASIS = re.compile(r"(\*{1,3}|_{1,3}|`+)(?=\S)(.+?)(?<=\S)\1")
_HTML_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")
_URL = re.compile(r"(?:https?://|www\.)\S+|\S+@\S+\.\w+")
_BRACKET_CITATION = re.compile(r"\[[^\[\]]*(?:\d|et al)[^\[\]]*\]")
_PAREN_CITATION = re.compile(r"\([^()]*et al\.?[^()]*\)")
_ET_AL = re.compile(r"\bet al\.?", re.IGNORECASE)
_STATE_OF_THE_ART = re.compile(r"\bstate[- ]of[- ]the[- ]art\b", re.IGNORECASE)
# A contraction is no word: "don't" and "isn't" say nothing about a topic, and the "ll" of "we'll" and the "s" of
# "it's" are not words of their own. Kept, they named newsgroup posts "T know", "D like" and "S true". A possessive
# ("model's") stays as it was: made no word too, it moved the scorecard's topics and trees on the ML corpora, where
# 20% of arXiv abstracts write one and almost none a contraction, with no name to mend (docs/benchmarks.md).
_CONTRACTION = re.compile(r"\b\w+n['\u2019]t\b|\b(\w+)['\u2019](s|d|m|ll|ve|re)\b", re.IGNORECASE)


@functools.lru_cache(maxsize=65_536)  # keywords, labels and acronyms each read the fit sample's abstracts
def strip_markup(text: str) -> str:
    """Readable plain text: LaTeX commands and markdown emphasis removed, their words kept.

    Math keeps its letters (`$(\\mathbf{S} + \\mathbf{L})$` reads "(S + L)") so a title
    built from it still makes sense.
    """
    return _strip_markup(text)


def _strip_markup(text: str) -> str:
    text = _LATEX_ESCAPE.sub(r"\1", text)
    text = _LATEX_CITE.sub("", text)
    text = _INLINE_MATH.sub(lambda m: m.group(0).strip("$"), text)
    previous = None
    while previous != text:  # nested commands: \textbf{\emph{x}}
        previous, text = text, _LATEX_WITH_ARG.sub(r"\1", text)
    text = _LATEX_COMMAND.sub("", text).replace("{", "").replace("}", "")
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_EMPHASIS.sub(r"\2", text)
    text = _HTML_TAG.sub("", text)
    return " ".join(text.split())


def clean_for_keywords(text: str) -> str:
    """Text fit for counting words: no math, URLs, citations, markup or contractions; hyphens as spaces.

    Hyphens become spaces so "low-rank" and "low rank" count as the same bigram.
    """
    text = _LATEX_ESCAPE.sub(" ", text)
    text = _LATEX_CITE.sub(" ", text)
    text = _INLINE_MATH.sub(" ", text)
    text = _URL.sub(" ", text)
    text = _BRACKET_CITATION.sub(" ", text)
    text = _PAREN_CITATION.sub(" ", text)
    text = _ET_AL.sub(" ", text)
    text = _STATE_OF_THE_ART.sub(" ", text)
    text = without_contractions(text)
    # Not through `strip_markup`'s cache: this text is made here, so each paper the TF-IDF embedder or the phrase
    # count reads (every paper of a build) would hold an entry of two new strings (130 MiB for 65,536 arXiv
    # abstracts, the cache full) and push out the abstracts that the names read again and again.
    text = _strip_markup(text)
    text = re.sub(r"[-\u2010-\u2015]+", " ", text)
    return text.lower()


_PHRASE_BREAK = re.compile(r"[^\w\s]+")
_TOKEN = re.compile(TOKEN_PATTERN)
_WORD = re.compile(r"\w+")


def word_runs(text: str) -> list[list[str]]:
    """Runs of content words: split at punctuation, stop words and numbers ("llama 2 models")."""
    runs: list[list[str]] = []
    for segment in _PHRASE_BREAK.split(clean_for_keywords(text)):
        run: list[str] = []
        for word in [*_WORD.findall(segment), None]:
            if word is not None and word not in STOP_WORDS and _TOKEN.fullmatch(word):
                run.append(word)
                continue
            if run:
                runs.append(run)
            run = []
    return runs


def content_words(text: str) -> Iterator[str]:
    """The lowercase words of `text` that could say what it is about: no stop words, contractions, numbers or
    symbols."""
    words = (m.group().lower() for m in _TOKEN.finditer(without_contractions(text)))
    return (word for word in words if word not in STOP_WORDS)


def without_contractions(text: str) -> str:
    """`text` with each negative contraction ("don't") and the clitic of every other ("we'll", "it's") made a phrase
    break: the words around it are kept, and no phrase joins them. An "'s" after a word that is no stop word is a
    possessive ("model's"), left as it is."""
    if "'" not in text and "\u2019" not in text:  # most abstracts: the pattern's scan took a third of the cleaning
        return text
    return _CONTRACTION.sub(_contraction_gone, text)


def _contraction_gone(found: re.Match) -> str:
    """What `without_contractions` writes for one match of `_CONTRACTION`."""
    stem, clitic = found.group(1), found.group(2)
    if stem is None:
        return " ; "
    if clitic.lower() == "s" and stem.lower() not in STOP_WORDS:
        return found.group(0)
    return f"{stem} ; "


def has_content(text: str) -> bool:
    """True when `text` holds at least one content word (an abstract of only numbers or stop words has none)."""
    return next(content_words(text), None) is not None


def shared_words(texts: Iterable[str], enough: int) -> int:
    """How many distinct content words occur in two texts or more, counted up to `enough` (so usually quick)."""
    seen: set[str] = set()
    shared: set[str] = set()
    for text in texts:
        words = set(content_words(text))
        shared |= words & seen
        if len(shared) >= enough:
            break
        seen |= words
    return min(len(shared), enough)


MAX_PHRASE_WORDS = 4
"""The longest keyword phrase, in words: the keywords' candidates and the saved BERTopic model's vectorizer alike."""


def phrases(text: str, max_words: int = MAX_PHRASE_WORDS) -> list[str]:
    """The words and short phrases of `text` that can serve as keywords.

    Phrases of up to `MAX_PHRASE_WORDS` words ("parameter efficient fine tuning") never cross punctuation,
    a stop word or a number, so "Low-Rank Adaptation (LoRA) of large language models" yields "low rank
    adaptation" and "large language models" but not "adaptation lora".
    """
    terms: list[str] = []
    for run in word_runs(text):
        for size in range(1, max_words + 1):
            terms.extend(" ".join(run[i : i + size]) for i in range(len(run) - size + 1))
    return terms
