"""Which metadata columns get filters, and which papers pass them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.dashboard.tinybuild import tiny_papers
from topic_explorer.dashboard.logic.filters import Filters, column_filters, filter_mask, filter_words


@pytest.fixture
def papers() -> pd.DataFrame:
    return tiny_papers()


@pytest.fixture
def word_text(papers) -> pd.Series:
    return (papers["title"] + "\n" + papers["abstract"]).str.lower()


def test_integer_columns_get_a_whole_number_range_and_few_texts_get_choices(papers):
    specs = {spec.column: spec for spec in column_filters(papers, ["year", "venue", "score"])}
    assert specs["year"].kind == "range"
    assert specs["year"].integer
    assert specs["year"].bounds == (2020, 2023)
    assert specs["score"].kind == "range"
    assert not specs["score"].integer
    assert specs["score"].bounds == (0.5, 4.0)
    assert specs["venue"].kind == "choice"
    assert specs["venue"].options == ("ICLR", "ICML", "NeurIPS")


def test_identifiers_free_text_and_constant_columns_get_no_filter(papers):
    papers["constant"] = "same"
    papers["notes"] = [f"note {i}" for i in range(len(papers))]  # every value its own: free text
    assert column_filters(papers, ["doi", "constant", "notes"]) == []


def test_a_column_unique_per_paper_is_an_identifier_whatever_its_name():
    papers = pd.DataFrame({"ref": [f"R{i:03d}" for i in range(40)], "n": pd.array(range(40), dtype="Int64")})
    assert column_filters(papers, ["ref", "n"]) == []
    assert [spec.kind for spec in column_filters(papers.head(10), ["n"])] == ["range"]  # 10 papers: maybe years


def test_hundreds_of_categories_get_one_multiselect_with_every_option():
    papers = pd.DataFrame({"category": [f"cat.{i % 300:03d}" for i in range(3000)]})
    (spec,) = column_filters(papers, ["category"])
    assert spec.kind == "choice"
    assert len(spec.options) == 300
    assert spec.options[:2] == ("cat.000", "cat.001")


def test_dates_get_a_date_range_whether_stored_as_dates_or_as_iso_text():
    papers = pd.DataFrame(
        {
            "published": ["2024-01-05", "2024-03-01T10:00:00Z", None, "2023-12-31"],
            "stamp": pd.to_datetime(["2024-01-05", "2024-02-01", "2024-02-01", None]),
        }
    )
    specs = {spec.column: spec for spec in column_filters(papers, ["published", "stamp"])}
    assert specs["published"].kind == "dates"
    assert specs["published"].bounds == ("2023-12-31", "2024-03-01")
    assert specs["stamp"].kind == "dates"
    assert specs["stamp"].bounds == ("2024-01-05", "2024-02-01")
    word_text = pd.Series([""] * 4)
    mask = filter_mask(papers, word_text, Filters(dates=(("published", ("2024-01-01", "2024-12-31")),)))
    assert mask.tolist() == [True, True, False, False]


def test_bool_and_list_columns_are_offered_as_text_choices(papers, word_text):
    papers["open_access"] = [True, False] * 4
    papers["authors"] = [["a", "b"], ["c"]] * 4
    specs = {spec.column: spec for spec in column_filters(papers, ["open_access", "authors"])}
    assert specs["open_access"].options == ("false", "true")
    assert specs["authors"].options == ('["a", "b"]', '["c"]')
    assert filter_mask(papers, word_text, Filters(choices=(("open_access", ("true",)),))).sum() == 4


def test_whole_number_columns_with_gaps_filter_and_drop_the_gaps(word_text):
    papers = pd.DataFrame({"year": pd.array([2020, None, 2022, 2023, 2020, None, 2021, 2023], dtype="Int64")})
    mask = filter_mask(papers, word_text, Filters(ranges=(("year", (2021.0, 2022.0)),)))
    assert np.flatnonzero(mask).tolist() == [2, 6]


def test_no_filters_pass_every_paper(papers, word_text):
    assert filter_mask(papers, word_text, Filters()).all()


def test_topic_filter_keeps_only_those_topics(papers, word_text):
    mask = filter_mask(papers, word_text, Filters(topics=(1, 2)))
    assert set(papers.loc[mask, "topic_id"]) == {1, 2}
    assert mask.sum() == 5


def test_the_word_filter_ignores_case_and_needs_every_word(papers, word_text):
    assert filter_mask(papers, word_text, Filters(words=filter_words("Federated"))).sum() == 2
    both = filter_mask(papers, word_text, Filters(words=filter_words("federated PRIVACY")))
    assert papers.loc[both, "paper_id"].tolist() == ["p000000000001", "p000000000006"]
    assert not filter_mask(papers, word_text, Filters(words=filter_words("federated graphs"))).any()


def test_the_word_filter_is_a_plain_substring_not_a_regex(papers, word_text):
    assert filter_mask(papers, word_text, Filters(words=filter_words("$\\mathbf{s}$"))).sum() == 1
    assert not filter_mask(papers, word_text, Filters(words=filter_words(".*"))).any()


def test_filter_words_are_lowercase_and_unique():
    assert filter_words("  LoRA lora  Privacy ") == ("lora", "privacy")
    assert filter_words("") == ()


def test_range_filter_includes_its_bounds_and_drops_missing_values(papers, word_text):
    years = filter_mask(papers, word_text, Filters(ranges=(("year", (2021.0, 2022.0)),)))
    assert sorted(papers.loc[years, "year"]) == [2021, 2021, 2022, 2022]
    scores = filter_mask(papers, word_text, Filters(ranges=(("score", (0.0, 10.0)),)))
    assert scores.sum() == len(papers) - 1  # the NaN score fails an active range


def test_choice_filter_keeps_the_chosen_values(papers, word_text):
    mask = filter_mask(papers, word_text, Filters(choices=(("venue", ("ICLR", "ICML")),)))
    assert set(papers.loc[mask, "venue"]) == {"ICLR", "ICML"}


def test_filters_combine_with_and(papers, word_text):
    filters = Filters(topics=(0,), choices=(("venue", ("NeurIPS",)),), ranges=(("year", (2022.0, 2023.0)),))
    assert np.flatnonzero(filter_mask(papers, word_text, filters)).tolist() == [6]


def test_equal_filters_compare_equal_so_a_change_can_be_detected():
    assert Filters(topics=(1,), words=("a",)) == Filters(topics=(1,), words=("a",))
    assert Filters(topics=(1,)) != Filters(topics=(1, 2))
