"""Which metadata columns get filters, and which papers pass them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dashboard.filters import Filters, column_filters, filter_mask, search_words
from tests.dashboard.tinybuild import tiny_papers


@pytest.fixture
def papers() -> pd.DataFrame:
    return tiny_papers()


@pytest.fixture
def search(papers) -> pd.Series:
    return (papers["title"] + "\n" + papers["abstract"]).str.lower()


def test_integer_columns_get_a_whole_number_range_and_few_texts_get_choices(papers):
    specs = {spec.column: spec for spec in column_filters(papers, ["year", "venue", "score"])}
    assert specs["year"].kind == "range" and specs["year"].integer and specs["year"].bounds == (2020, 2023)
    assert specs["score"].kind == "range" and not specs["score"].integer and specs["score"].bounds == (0.5, 4.0)
    assert specs["venue"].kind == "choice" and specs["venue"].options == ("ICLR", "ICML", "NeurIPS")


def test_high_cardinality_text_and_constant_columns_get_no_filter(papers):
    papers["constant"] = "same"
    assert column_filters(papers, ["doi", "constant"], max_choices=5) == []


def test_bool_and_list_columns_are_offered_as_text_choices(papers, search):
    papers["open_access"] = [True, False] * 4
    papers["authors"] = [["a", "b"], ["c"]] * 4
    specs = {spec.column: spec for spec in column_filters(papers, ["open_access", "authors"])}
    assert specs["open_access"].options == ("False", "True")
    assert specs["authors"].options == ("['a', 'b']", "['c']")
    assert filter_mask(papers, search, Filters(choices=(("open_access", ("True",)),))).sum() == 4


def test_no_filters_pass_every_paper(papers, search):
    assert filter_mask(papers, search, Filters()).all()


def test_topic_filter_keeps_only_those_topics(papers, search):
    mask = filter_mask(papers, search, Filters(topics=(1, 2)))
    assert set(papers.loc[mask, "topic_id"]) == {1, 2}
    assert mask.sum() == 5


def test_search_ignores_case_and_needs_every_word(papers, search):
    assert filter_mask(papers, search, Filters(search=search_words("Federated"))).sum() == 2
    both = filter_mask(papers, search, Filters(search=search_words("federated PRIVACY")))
    assert papers.loc[both, "paper_id"].tolist() == ["p000000000001", "p000000000006"]
    assert not filter_mask(papers, search, Filters(search=search_words("federated graphs"))).any()


def test_search_is_a_plain_substring_not_a_regex(papers, search):
    assert filter_mask(papers, search, Filters(search=search_words("$\\mathbf{s}$"))).sum() == 1
    assert not filter_mask(papers, search, Filters(search=search_words(".*"))).any()


def test_search_words_are_lowercase_and_unique():
    assert search_words("  LoRA lora  Privacy ") == ("lora", "privacy")
    assert search_words("") == ()


def test_range_filter_includes_its_bounds_and_drops_missing_values(papers, search):
    years = filter_mask(papers, search, Filters(ranges=(("year", (2021.0, 2022.0)),)))
    assert sorted(papers.loc[years, "year"]) == [2021, 2021, 2022, 2022]
    scores = filter_mask(papers, search, Filters(ranges=(("score", (0.0, 10.0)),)))
    assert scores.sum() == len(papers) - 1  # the NaN score fails an active range


def test_choice_filter_keeps_the_chosen_values(papers, search):
    mask = filter_mask(papers, search, Filters(choices=(("venue", ("ICLR", "ICML")),)))
    assert set(papers.loc[mask, "venue"]) == {"ICLR", "ICML"}


def test_filters_combine_with_and(papers, search):
    filters = Filters(topics=(0,), choices=(("venue", ("NeurIPS",)),), ranges=(("year", (2022.0, 2023.0)),))
    assert np.flatnonzero(filter_mask(papers, search, filters)).tolist() == [6]


def test_equal_filters_compare_equal_so_a_change_can_be_detected():
    assert Filters(topics=(1,), search=("a",)) == Filters(topics=(1,), search=("a",))
    assert Filters(topics=(1,)) != Filters(topics=(1, 2))
