"""Curate the topics: rename, merge, move selected papers, undo; saved with the build (`pipeline.buildfolder.edits`).

Every edit is written to the build's edits file at once, so it survives a reload, shows in every
session on its next rerun (the build's version includes the edits file) and reaches every download
and `topic-explorer evaluate`. The build's own files never change, so any edit can be undone.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from topic_explorer.dashboard.logic.data import Explorer
from topic_explorer.dashboard.logic.safetext import escape_markdown
from topic_explorer.dashboard.ui.sidebar import keep_valid
from topic_explorer.pipeline.buildfolder import edits
from topic_explorer.pipeline.buildfolder.schema import TOPICS_FILE
from topic_explorer.pipeline.errors import UserError

ERROR_KEY = "edit-error"
RENAME_TOPIC, RENAME_LABEL = "edit-rename-topic", "edit-rename-label"
MERGE_TOPICS, MERGE_LABEL = "edit-merge-topics", "edit-merge-label"
MOVE_TOPIC = "edit-move-topic"


def describe(edit: dict, labels: dict[int, str], before: dict[int, str] | None = None) -> str:
    """One line saying what an edit did, for the undo button's caption (pure); `before`: the labels it changed."""
    if edit["kind"] == "rename":
        old = (before or {}).get(edit["topic_id"])
        return f"renamed “{old}” to “{edit['label']}”" if old else f"renamed a topic to “{edit['label']}”"
    if edit["kind"] == "merge":
        return f"merged {len(edit['topic_ids'])} topics into “{edit['label']}”"
    return f"moved {len(edit['paper_ids']):,} papers to “{labels.get(edit['topic_id'], edit['topic_id'])}”"


def render_curation(explorer: Explorer, folder: Path, selected: np.ndarray) -> None:
    """The edit controls, in an expander under the topic details."""
    topics = explorer.topics.loc[explorer.topics["topic_id"] >= 0]
    labels = dict(zip(topics["topic_id"], topics["label"], strict=True))
    ids = topics["topic_id"].tolist()
    for key, many in ((RENAME_TOPIC, False), (MERGE_TOPICS, True), (MOVE_TOPIC, False)):
        keep_valid(key, set(ids), many=many)
    with st.expander("Edit topics (saved with the build)"):
        if st.session_state.get(ERROR_KEY):
            st.error(escape_markdown(st.session_state.pop(ERROR_KEY)))
        st.selectbox("Topic to rename", ids, format_func=labels.__getitem__, key=RENAME_TOPIC)
        st.text_input("New name", key=RENAME_LABEL, max_chars=edits.MAX_LABEL_CHARS)
        st.button("Rename", key="edit-rename", on_click=_rename, args=(folder,))
        st.divider()
        chosen = st.multiselect("Topics to merge", ids, format_func=labels.__getitem__, key=MERGE_TOPICS)
        sizes = dict(zip(topics["topic_id"], topics["size"], strict=True))
        biggest = max(chosen, key=sizes.__getitem__) if chosen else None
        st.text_input(
            "Name of the merged topic",
            key=MERGE_LABEL,
            max_chars=edits.MAX_LABEL_CHARS,
            placeholder=labels[biggest] if biggest is not None else "",
        )
        st.button("Merge", key="edit-merge", on_click=_merge, args=(folder, biggest, labels), disabled=len(chosen) < 2)
        st.divider()
        n_selected = int(selected.sum())
        st.selectbox("Move the selected papers to", ids, format_func=labels.__getitem__, key=MOVE_TOPIC)
        paper_ids = explorer.papers["paper_id"].to_numpy()[selected].tolist()
        st.button(
            f"Move {n_selected:,} selected paper{'s' if n_selected != 1 else ''}",
            key="edit-move",
            on_click=_move,
            args=(folder, paper_ids),
            disabled=not n_selected,
        )
        st.divider()
        last = explorer.build.edits[-1] if explorer.build.edits else None
        st.button("Undo last edit", key="edit-undo", on_click=_undo, args=(folder,), disabled=last is None)
        if last is not None:
            before = labels_before(
                _built_labels(str(folder), explorer.build.manifest.get("created_at")), explorer.build.edits[:-1]
            )
            st.caption(escape_markdown(f"Last edit: {describe(last, labels, before)}"))


@st.cache_data(max_entries=8, show_spinner=False)
def _built_labels(folder: str, created_at: object) -> dict[int, str]:
    """The topics' names as the build made them, before any edit (kept per build: `created_at` changes on a rebuild)."""
    topics = pd.read_parquet(Path(folder) / TOPICS_FILE, columns=["topic_id", "label"])
    return dict(zip(topics["topic_id"].astype(int), topics["label"].astype(str), strict=True))


def labels_before(built: dict[int, str], earlier: tuple[dict, ...] | list[dict]) -> dict[int, str]:
    """The topics' names once the `earlier` edits are made to the build's own (pure)."""
    labels = dict(built)
    for edit in earlier:
        if edit["kind"] == "rename":
            labels[edit["topic_id"]] = edit["label"]
        elif edit["kind"] == "merge":
            labels[edit["into"]] = edit["label"]
    return labels


def _save(folder: Path, make) -> None:
    try:
        edits.add_edit(folder, make())
    except UserError as error:
        st.session_state[ERROR_KEY] = str(error)


def _rename(folder: Path) -> None:
    _save(folder, lambda: edits.rename(st.session_state[RENAME_TOPIC], st.session_state.get(RENAME_LABEL, "")))
    st.session_state[RENAME_LABEL] = ""


def _merge(folder: Path, into: int | None, labels: dict[int, str]) -> None:
    name = st.session_state.get(MERGE_LABEL, "").strip() or labels.get(into, "")
    _save(folder, lambda: edits.merge(st.session_state.get(MERGE_TOPICS, []), into, name))
    st.session_state[MERGE_TOPICS], st.session_state[MERGE_LABEL] = [], ""


def _move(folder: Path, paper_ids: list[str]) -> None:
    _save(folder, lambda: edits.move(paper_ids, st.session_state[MOVE_TOPIC]))


def _undo(folder: Path) -> None:
    edits.undo_last(folder)
