"""The page on a build with every kind of metadata: the filter each column gets, and ids found and linked."""

from __future__ import annotations

import datetime
import re

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.tinybuild import tiny_topics
from topic_explorer.dashboard.logic.safetext import escape_markdown
from topic_explorer.dashboard.ui.sidebar import WORDS_KEY, metadata_key
from topic_explorer.pipeline.buildfolder.metadata import number_text
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.write import write_build

N = 400
N_CATEGORIES = 150


@pytest.fixture(scope="module")
def kinds_build(tmp_path_factory):
    """400 papers with a year, a date, hundreds of categories, free text, a flag, a score and three ids."""
    rng = np.random.default_rng(3)
    topic = np.arange(N) % 3
    papers = pd.DataFrame(
        {
            "paper_id": [f"p{i:012x}" for i in range(N)],
            "title": [f"Paper {i}" for i in range(N)],
            "abstract": [f"Abstract number {i}." for i in range(N)],
            "topic_id": topic,
            "topic_label": tiny_topics()["label"].to_numpy()[topic],
            "confidence": rng.uniform(0.2, 0.9, N),
            "fits_poorly": False,
            "x": rng.uniform(0, 1, N).astype(np.float32),
            "y": rng.uniform(0, 1, N).astype(np.float32),
            "year": pd.array(2020 + np.arange(N) % 6, dtype="Int64"),
            "published": [f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}" for i in range(N)],
            "category": [f"cs.{i % N_CATEGORIES:03d}" for i in range(N)],
            "notes": [f"free text note {i}" for i in range(N)],
            "open_access": pd.array([i % 2 == 0 for i in range(N)], dtype="boolean"),
            "score": rng.uniform(0, 10, N).round(3),
            "precise": rng.uniform(0, 1, N),  # more decimals than the table shows: shown as text, every digit
            "id": [f"2601.{i:05d}" for i in range(N)],
            "doi": [f"10.5555/x{i}" for i in range(N)],
            "number": pd.array(range(1000, 1000 + N), dtype="Int64"),  # unique whole numbers: an id, not a range
        }
    )
    papers.loc[7, "id"] = "javascript:alert(1)"  # never a link
    topics = tiny_topics().assign(size=np.bincount(topic))
    return write_build(tmp_path_factory.mktemp("kinds") / "kinds", papers, topics, np.zeros((N, 2), np.float32), {})


@pytest.fixture
def page(run_app, kinds_build) -> AppTest:
    return run_app(kinds_build)


def shown(at: AppTest) -> int:
    status = next(m.value for m in at.markdown if m.value.startswith("**Showing"))
    return int(re.search(r"Showing ([\d,]+) of", status).group(1).replace(",", ""))


def widget_keys(at: AppTest) -> set[str]:
    return {w.key for w in [*at.slider, *at.multiselect] if (w.key or "").startswith("filter-meta-")}


def test_each_metadata_column_gets_the_filter_that_fits_it(page):
    assert not page.exception
    filtered = ["year", "published", "category", "open_access", "score", "precise"]
    assert widget_keys(page) == {metadata_key(c) for c in filtered}
    year = page.slider(key=metadata_key("year"))
    assert year.value == (2020, 2025)
    assert year.label == "Year"
    published = page.slider(key=metadata_key("published"))
    assert published.value == (datetime.date(2024, 1, 1), datetime.date(2024, 12, 28))
    category = page.multiselect(key=metadata_key("category"))
    assert len(category.options) == N_CATEGORIES
    assert "type to find one of 150 values" in category.placeholder
    assert page.multiselect(key=metadata_key("open_access")).options == ["false", "true"]


def test_year_date_and_category_filters_narrow_the_papers(page):
    page.slider(key=metadata_key("year")).set_value((2021, 2022)).run()
    assert shown(page) == sum(1 for i in range(N) if i % 6 in (1, 2))  # the papers of 2021 and 2022
    page.slider(key=metadata_key("published")).set_value((datetime.date(2024, 3, 1), datetime.date(2024, 3, 31))).run()
    table = page.dataframe[0].value
    assert set(table["year"]) <= {2021, 2022}
    assert table["published"].str.startswith("2024-03").all()
    page.multiselect(key=metadata_key("category")).set_value(["cs.014"]).run()
    assert not page.exception
    assert set(page.dataframe[0].value["category"]) <= {"cs.014"}


def test_a_paper_is_found_by_its_id_and_shown_with_a_link_to_its_page(page):
    label = escape_markdown("Filter by words (titles, abstracts, ID, DOI, Number)")
    assert page.text_input(key=WORDS_KEY).label == label
    page.text_input(key=WORDS_KEY).set_value("2601.00042").run()
    assert shown(page) == 1
    table = page.dataframe[0].value
    assert table["id"].tolist() == ["2601.00042"]
    assert table["title"].tolist() == ["Paper 42"]
    assert table["id link"].tolist() == ["https://arxiv.org/abs/2601.00042"]
    assert table["doi link"].tolist() == ["https://doi.org/10.5555/x42"]
    buttons = {b.proto.label: b.proto.url for b in page.get("link_button")}
    assert buttons == {  # labels are markdown-escaped: the id is shown as plain text
        escape_markdown("ID 2601.00042 on arxiv.org ↗"): "https://arxiv.org/abs/2601.00042",
        escape_markdown("DOI 10.5555/x42 on doi.org ↗"): "https://doi.org/10.5555/x42",
    }


def test_identifiers_are_text_in_the_table_and_a_non_link_value_gets_no_link(page, kinds_build):
    table = page.dataframe[0].value
    papers = read_build(kinds_build).papers
    assert table["precise"].tolist() == [number_text(v) for v in papers["precise"]]
    assert table["score"].dtype == "float64"
    assert table["year"].tolist()[:2] == [2020, 2021]
    assert table["number"].tolist()[:2] == ["1000", "1001"]  # text: no thousands separator, no slider
    assert table.loc[table["id"] == "javascript:alert(1)", "id link"].isna().all()
    page.text_input(key=WORDS_KEY).set_value("1042").run()
    assert page.dataframe[0].value["number"].tolist() == ["1042"]
