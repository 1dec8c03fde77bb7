"""Curate the topics: rename, merge, move selected papers, undo; saved with the build (`pipeline.buildfolder.edits`).

Every edit is written to the build's edits file at once, so it survives a reload, shows in every
session on its next rerun (the build's version includes the edits file) and reaches every download
and `topic-explorer evaluate`. The build's own files never change, so any edit can be undone.

Editing is on only where `dashboard.logic.editing.edits_allowed` says so for the address this server
listens on. Off, the controls are not drawn, and `save_edit` and `undo_edit` (the only code here that writes the
edits file) refuse any edit that still reaches them. Each edit is recorded with the session's two-word name.

Renaming a topic can also gather the papers that fit the new name, matched exactly as `build --topics`
matches the names it is given (`pipeline.fit.named_topics`): the rename, then one move of those papers.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from topic_explorer.dashboard.launch import ALLOW_EDITS_ENV
from topic_explorer.dashboard.logic.data import Explorer
from topic_explorer.dashboard.logic.editing import edits_allowed, read_only_note, session_name
from topic_explorer.dashboard.logic.safetext import escape_markdown
from topic_explorer.dashboard.ui import meaning
from topic_explorer.dashboard.ui.sidebar import keep_valid
from topic_explorer.pipeline.buildfolder import edits
from topic_explorer.pipeline.buildfolder.read import read_edit_history
from topic_explorer.pipeline.buildfolder.schema import TOPICS_FILE
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.settings import BuildSettings

ERROR_KEY = "edit-error"
RENAME_TOPIC, RENAME_LABEL, RENAME_GATHER = "edit-rename-topic", "edit-rename-label", "edit-rename-gather"
MERGE_TOPICS, MERGE_LABEL = "edit-merge-topics", "edit-merge-label"
MOVE_TOPIC = "edit-move-topic"
HISTORY_SHOWN = 50  # the newest history entries listed
REFUSED = "Editing is off on this server; nothing was changed."


def editing_allowed() -> bool:
    """Whether this server lets its users edit: from the address it listens on, and `--allow-edits`."""
    return edits_allowed(st.get_option("server.address"), os.environ.get(ALLOW_EDITS_ENV) == "1")


def this_session() -> str:
    """The two-word name of the browser session running this script."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx()
    return session_name(context.session_id if context is not None else "")


def describe(edit: dict, labels: dict[int, str], before: dict[int, str] | None = None) -> str:
    """One line saying what an edit did, for the undo button's caption (pure); `before`: the labels it changed."""
    if edit["kind"] == "rename":
        old = (before or {}).get(edit["topic_id"])
        return f"renamed “{old}” to “{edit['label']}”" if old else f"renamed a topic to “{edit['label']}”"
    if edit["kind"] == "merge":
        return f"merged {len(edit['topic_ids'])} topics into “{edit['label']}”"
    if edit["kind"] == "rename_theme":
        return f"renamed a theme to “{edit['label']}”"
    return f"moved {len(edit['paper_ids']):,} papers to “{labels.get(edit['topic_id'], edit['topic_id'])}”"


def describe_entry(entry: dict, labels: dict[int, str]) -> dict[str, str]:
    """One row of the edit history: when (UTC), who, what (pure)."""
    what = describe(entry["edit"], labels)
    when = entry["at"].replace("T", " ").removesuffix("+00:00")
    return {"When (UTC)": when, "Who": entry["by"], "What": ("undid: " if entry["action"] == "undo" else "") + what}


def render_curation(explorer: Explorer, folder: Path, selected: np.ndarray, manifest_version: int) -> None:
    """The edit controls, in an expander under the topic details (or why there are none), and the history."""
    if st.session_state.get(ERROR_KEY):
        st.error(escape_markdown(st.session_state.pop(ERROR_KEY)))
    if editing_allowed():
        _render_controls(explorer, folder, selected, manifest_version)
    else:
        st.caption(escape_markdown(read_only_note(st.get_option("server.address"))))
    _render_history(explorer, folder)


def _render_history(explorer: Explorer, folder: Path) -> None:
    try:
        history = read_edit_history(folder)
    except UserError as error:
        st.error(escape_markdown(str(error)))
        return
    if not history:
        return
    labels = dict(zip(explorer.build.topics["topic_id"], explorer.build.topics["label"], strict=True))
    with st.expander(f"Edit history ({len(history):,})"):
        rows = [describe_entry(entry, labels) for entry in reversed(history[-HISTORY_SHOWN:])]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        st.caption("Newest first; each browser session goes by two words of its own.")


def _render_controls(explorer: Explorer, folder: Path, selected: np.ndarray, manifest_version: int) -> None:
    topics = explorer.topics.loc[explorer.topics["topic_id"] >= 0]
    labels = dict(zip(topics["topic_id"], topics["label"], strict=True))
    ids = topics["topic_id"].tolist()
    for key, many in ((RENAME_TOPIC, False), (MERGE_TOPICS, True), (MOVE_TOPIC, False)):
        keep_valid(key, set(ids), many=many)
    with st.expander("Edit topics (saved with the build)"):
        st.selectbox("Topic to rename", ids, format_func=labels.__getitem__, key=RENAME_TOPIC)
        st.text_input("New name", key=RENAME_LABEL, max_chars=edits.MAX_LABEL_CHARS)
        st.checkbox(
            "Also move here the papers that fit the name",
            key=RENAME_GATHER,
            help="Papers are matched to the name as `topic-explorer build --topics` matches names: acronyms read "
            "as the papers spell them out, closeness judged against the rest of the corpus.",
        )
        st.button("Rename", key="edit-rename", on_click=_rename, args=(folder, explorer, manifest_version))
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
        st.button("Undo last edit", key="edit-undo", on_click=undo_edit, args=(folder,), disabled=last is None)
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


def save_edit(folder: Path, make: Callable[[], dict]) -> None:
    """Write the edit `make()` returns, as this session; refused (nothing written) when editing is off."""
    if not editing_allowed():  # the controls are hidden then; a request that reaches here anyway changes nothing
        st.session_state[ERROR_KEY] = REFUSED
        return
    try:
        edit = make()
    except (ValueError, TypeError, KeyError):  # widget values no page of ours sends (a forged request)
        st.session_state[ERROR_KEY] = "That edit could not be read; nothing was changed."
        return
    except UserError as error:
        st.session_state[ERROR_KEY] = str(error)
        return
    try:
        edits.add_edit(folder, edit, by=this_session())
    except UserError as error:
        st.session_state[ERROR_KEY] = str(error)


def _rename(folder: Path, explorer: Explorer, manifest_version: int) -> None:
    topic, name = st.session_state[RENAME_TOPIC], st.session_state.get(RENAME_LABEL, "")
    save_edit(folder, lambda: edits.rename(topic, name))
    if st.session_state.get(RENAME_GATHER) and not st.session_state.get(ERROR_KEY):
        fitting = _fitting(folder, explorer, manifest_version, edits.clean_label(name))
        outside = explorer.papers["topic_id"].to_numpy()[np.isin(explorer.ids, fitting)] != topic
        if outside.any():
            save_edit(folder, lambda: edits.move(np.asarray(fitting)[outside].tolist(), topic))
    st.session_state[RENAME_LABEL] = ""


def _fitting(folder: Path, explorer: Explorer, manifest_version: int, name: str) -> list[str]:
    """Ids of the papers that fit `name`, in the build's order, matched as `build --topics` matches names."""
    from topic_explorer.pipeline.fit.named_topics import match_named_topics

    embedder = meaning.build_embedder(str(folder), manifest_version)
    vectors = np.asarray(meaning.vectors(str(folder), manifest_version), dtype=np.float32)
    match = match_named_topics(
        [name],
        explorer.papers["abstract"].tolist(),
        vectors,
        embedder.transform,
        threshold=BuildSettings.named_topic_threshold,
    )
    return explorer.ids[match.paper_name == 0].tolist()


def _merge(folder: Path, into: int | None, labels: dict[int, str]) -> None:
    name = st.session_state.get(MERGE_LABEL, "").strip() or labels.get(into, "")
    save_edit(folder, lambda: edits.merge(st.session_state.get(MERGE_TOPICS, []), into, name))
    st.session_state[MERGE_TOPICS], st.session_state[MERGE_LABEL] = [], ""


def _move(folder: Path, paper_ids: list[str]) -> None:
    save_edit(folder, lambda: edits.move(paper_ids, st.session_state[MOVE_TOPIC]))


def undo_edit(folder: Path) -> None:
    """Undo the last edit, as this session; refused (nothing written) when editing is off."""
    if not editing_allowed():
        st.session_state[ERROR_KEY] = REFUSED
        return
    edits.undo_last(folder, by=this_session())
