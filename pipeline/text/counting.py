"""Terms counted per text, in chunks: the terms and counts scikit-learn's CountVectorizer gives, in less memory.

The keyword candidates (`describe.terms.PaperTerms`) and the TF-IDF embedder's vocabulary (`embed.tfidf`) are
counted here. The count reads the texts in chunks (`_ChunkedCount`): only one chunk's phrases are Python strings at
a time, and a phrase used by one paper so far waits as two hashes until a second paper uses it. scikit-learn's
CountVectorizer held every phrase of the fit sample at once before dropping the rare ones; the few small objects that
outlived them, scattered among them, kept Python's allocator holding about 300 MB at 50,000 arXiv abstracts.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable

import numpy as np
from scipy import sparse

# Papers whose words and phrases the count holds as Python strings at once. At 50,000 arXiv abstracts (chunks of
# 5,000) the count's peak fell from 700 to 574 MiB above its start, and what it left resident (after malloc_trim)
# from 420 to 241 MiB: Python's allocator holds 126 arenas instead of 307 for the same 30 MB of terms.
COUNT_CHUNK = 5_000
_CHECK_SALT = "\u2029"  # appended to a term for its second, independent hash


def count_terms(
    texts: list[str],
    analyze: Callable[[str], list[str]],
    min_df: int,
    *,
    chunk: int = COUNT_CHUNK,
    dtype: type = np.int64,
) -> tuple[tuple[str, ...], sparse.csr_matrix]:
    """The terms `analyze` finds in `min_df` of `texts` or more (sorted) and each text's uses of them, counted `chunk`
    texts at a time (`_ChunkedCount`): the terms and the matrix, entries in the same order, that scikit-learn's
    CountVectorizer(analyzer=analyze, min_df=min_df, dtype=dtype) gives, without ever holding every rare term at
    once. (`dtype` is made here: scipy's `astype` would put each row's entries in column order.)"""
    counter = _ChunkedCount(min_df, analyze)
    for start in range(0, len(texts), chunk):
        counter.add(texts[start : start + chunk], first_row=start)
    return counter.result(len(texts), dtype)


class _ChunkedCount:
    """Per paper and term, the uses of each term that `min_df` papers use, from the papers given chunk by chunk.

    A term is kept once `min_df` papers are known to use it. Until then (`min_df` 2: one paper) it waits in its
    chunk's block, as two hashes (64 and 32 bits), its paper, uses and first sighting, and a later paper's term with
    both hashes keeps it with that use. Python's string hash is keyed afresh in each process, so whatever the texts,
    two phrases are taken for one with a chance of 2**-96 per pair, and a phrase's waiting use is missed only if it
    shares its 64-bit hash with another phrase waiting in the same block (2**-64 per pair; about 10**-8 per build of
    50,000 papers).
    """

    def __init__(self, min_df: int, analyze: Callable[[str], list[str]]):
        self.min_df = min_df
        self.analyze = analyze  # a text's terms, one per use
        self.kept: dict[str, int] = {}  # term -> its id, in the order kept
        self.first = [np.empty(0, dtype=np.int64)]  # per kept id (in order): when its term was first seen
        self.entries = {key: [np.empty(0, dtype=np.int32)] for key in ("row", "id", "uses")}  # per paper and kept term
        self.waiting: list[dict[str, np.ndarray]] = []  # per chunk: its terms used by one paper so far, by hash
        self.seen = 0  # distinct terms per chunk so far: a term's first sighting is this plus its id in its chunk

    def add(self, texts: list[str], *, first_row: int) -> None:
        """Count the papers `texts`, the rows from `first_row` on."""
        local: dict[str, int] = {}  # term -> its id in this chunk, in the order first seen
        ids, uses, sizes = array("q"), array("q"), array("q")  # machine integers: no Python int outlives the chunk
        for text in texts:
            found = Counter(self.analyze(text))
            ids.extend(local.setdefault(term, len(local)) for term in found)
            uses.extend(found.values())
            sizes.append(len(found))
        terms = list(local)
        del local
        id_of, uses_of = np.asarray(ids, dtype=np.int64), np.asarray(uses, dtype=np.int64)
        row_of = np.repeat(np.arange(first_row, first_row + len(texts)), np.asarray(sizes, dtype=np.int64))
        kept_id = np.fromiter((self.kept.get(term, -1) for term in terms), dtype=np.int64, count=len(terms))
        new = np.flatnonzero(kept_id < 0)
        hashes = np.fromiter((hash(terms[i]) for i in new), dtype=np.int64, count=len(new))
        checks = np.fromiter((hash(terms[i] + _CHECK_SALT) & 0xFFFFFFFF for i in new), np.uint32, count=len(new))
        found = np.zeros(len(new), dtype=bool)
        first_seen, waited_row, waited_uses = (
            self.seen + new,
            np.zeros(len(new), np.int32),
            np.zeros(len(new), np.int32),
        )
        for block in self.waiting:
            at = np.searchsorted(block["hash"], hashes).clip(max=len(block["hash"]) - 1)
            hit = (block["hash"][at] == hashes) & (block["check"][at] == checks)
            found |= hit
            first_seen[hit], waited_row[hit], waited_uses[hit] = (
                block[key][at[hit]] for key in ("first", "row", "uses")
            )
        keep = found | (np.bincount(id_of, minlength=len(terms))[new] >= self.min_df)
        kept_id[new[keep]] = len(self.kept) + np.arange(np.count_nonzero(keep))
        self.kept.update(zip(map(terms.__getitem__, new[keep].tolist()), kept_id[new[keep]].tolist(), strict=True))
        self.first.append(first_seen[keep])
        self._keep_entries(waited_row[found], kept_id[new[found]], waited_uses[found])
        by_hash = np.flatnonzero(~keep)[np.argsort(hashes[~keep])]
        if len(by_hash):  # terms this chunk's one paper uses, and no paper before: they wait
            entry = np.flatnonzero(np.diff(np.maximum.accumulate(id_of), prepend=-1) > 0)[new[by_hash]]  # ids in order
            self.waiting.append(
                {
                    "hash": hashes[by_hash],
                    "check": checks[by_hash],
                    "row": row_of[entry].astype(np.int32),
                    "uses": uses_of[entry].astype(np.int32),
                    "first": self.seen + new[by_hash],
                }
            )
        counted = kept_id[id_of] >= 0
        self._keep_entries(row_of[counted], kept_id[id_of[counted]], uses_of[counted])
        self.seen += len(terms)

    def _keep_entries(self, rows: np.ndarray, ids: np.ndarray, uses: np.ndarray) -> None:
        for key, values in (("row", rows), ("id", ids), ("uses", uses)):
            self.entries[key].append(values.astype(np.int32))

    def result(self, n_papers: int, dtype: type) -> tuple[tuple[str, ...], sparse.csr_matrix]:
        """The kept terms, sorted, and the counts: each paper's terms in the order the corpus first used them, as
        CountVectorizer leaves them."""
        names = list(self.kept)
        order = sorted(range(len(names)), key=names.__getitem__)
        column = np.empty(len(names), dtype=np.int32)
        column[order] = np.arange(len(names))
        first = np.concatenate(self.first)
        rows, ids, uses = (np.concatenate(self.entries[key]) for key in ("row", "id", "uses"))
        by_paper = np.lexsort((first[ids], rows))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n_papers))]).astype(np.int32)
        counts = sparse.csr_matrix(
            (uses[by_paper].astype(dtype), column[ids[by_paper]], indptr), shape=(n_papers, len(names))
        )
        return tuple(names[i] for i in order), counts
