"""`add`: new papers into an existing build, without refitting; duplicates skipped; the build safe if it fails."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from topic_explorer.pipeline.apply import batches
from topic_explorer.pipeline.buildfolder.read import read_build, read_model
from topic_explorer.pipeline.buildfolder.schema import BERTOPIC_DIR
from topic_explorer.pipeline.cli.main import main
from topic_explorer.pipeline.embed.cache import EmbeddingCache
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.fit.bertopic_model import load_saved
from topic_explorer.pipeline.run.add import add_papers
from topic_explorer.pipeline.run.build import run_build
from topic_explorer.pipeline.settings import BuildSettings


@pytest.fixture
def built(metadata_corpus, tmp_path, fake_embedder):
    """A build of the first 30 papers; the other 8 wait to be added."""
    table = pd.read_csv(metadata_corpus)
    table.head(30).to_csv(tmp_path / "first.csv", index=False)
    settings = BuildSettings(cache_dir=tmp_path / "cache")
    return run_build([tmp_path / "first.csv"], tmp_path / "build", settings, embedder=fake_embedder).path, table


def files_of(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_near_copies_of_a_builds_papers_join_their_originals_topics_and_places(built, tmp_path, fake_embedder):
    path, table = built
    before = read_build(path)
    before_vectors, before_terms = before.embeddings(), read_model(before).terms
    copies = table.head(30).assign(abstract=table["abstract"].head(30) + " We also release our code.")
    copies.to_csv(tmp_path / "copies.csv", index=False)
    result = add_papers(path, [tmp_path / "copies.csv"], embedder=fake_embedder, cache_dir=tmp_path / "cache")
    after = read_build(path)
    assert result.added == 30
    assert result.papers == 60
    assert len(after.papers) == 60
    old, new = after.papers.iloc[:30], after.papers.iloc[30:]
    pd.testing.assert_frame_equal(old.reset_index(drop=True), before.papers, check_dtype=False)
    assert (new["topic_id"].to_numpy() == old["topic_id"].to_numpy()).mean() >= 0.9
    distance = np.hypot(new["x"].to_numpy() - old["x"].to_numpy(), new["y"].to_numpy() - old["y"].to_numpy())
    assert np.median(distance) < 0.05
    assert not new["fit_sample"].any()
    assert old["fit_sample"].all()
    np.testing.assert_array_equal(after.embeddings()[:30], before_vectors)
    sizes = after.papers["topic_id"].value_counts()
    assert all(sizes[t] == s for t, s in zip(after.topics["topic_id"], after.topics["size"], strict=True))
    assert after.topics["label"].tolist() == before.topics["label"].tolist()  # labels stay put
    assert after.manifest["additions"][-1]["papers_added"] == 30
    assert after.manifest["counts"]["papers"] == 60
    pd.testing.assert_frame_equal(read_model(after).terms, before_terms)  # the topics as fitted: same keywords
    pd.testing.assert_frame_equal(after.topics[["topic_id", "keywords"]], before.topics[["topic_id", "keywords"]])
    saved = load_saved(path / BERTOPIC_DIR).get_topic_info()  # BERTopic's model counts the added papers too
    assert saved["Count"].tolist() == after.topics["size"].tolist()


def test_papers_the_build_already_has_are_skipped(built, tmp_path, fake_embedder):
    path, table = built
    table.to_csv(tmp_path / "all.csv", index=False)
    result = add_papers(path, [tmp_path / "all.csv"], embedder=fake_embedder, cache_dir=tmp_path / "cache")
    assert (result.added, result.duplicates) == (8, 30)
    again = add_papers(path, [tmp_path / "all.csv"], embedder=fake_embedder, cache_dir=tmp_path / "cache")
    assert (again.added, again.duplicates, again.papers) == (0, 38, 38)
    assert read_build(path).papers["paper_id"].is_unique


def test_metadata_of_added_papers_is_kept_and_new_columns_are_missing_for_old_papers(built, tmp_path, fake_embedder):
    path, table = built
    table.tail(8).assign(doi=[f"10.1/{i:04d}" for i in range(8)]).to_csv(tmp_path / "new.csv", index=False)
    add_papers(path, [tmp_path / "new.csv"], embedder=fake_embedder, cache_dir=tmp_path / "cache")
    papers = read_build(path).papers
    assert papers["doi"].iloc[:30].isna().all()
    assert papers["doi"].iloc[30:].tolist()[0] == "10.1/0000"
    assert papers["year"].tolist() == table["year"].tolist()


def test_a_failed_add_leaves_the_build_as_it_was(built, tmp_path, fake_embedder, monkeypatch):
    path, table = built
    before = files_of(path)
    table.tail(8).to_csv(tmp_path / "new.csv", index=False)

    def broken(*args, **kwargs):
        raise KeyboardInterrupt  # as if the user pressed Ctrl+C midway

    monkeypatch.setattr(batches, "place", broken)
    with pytest.raises(KeyboardInterrupt):
        add_papers(path, [tmp_path / "new.csv"], embedder=fake_embedder, cache_dir=tmp_path / "cache")
    assert files_of(path) == before
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(".")) == []


def test_many_poorly_fitting_papers_suggest_a_rebuild(built, tmp_path, fake_embedder):
    path, _ = built
    foreign = [f"Volcanic basalt {i} erupts magma lava plume caldera tephra ash crater {i * 7}" for i in range(12)]
    pd.DataFrame({"abstract": foreign}).to_csv(tmp_path / "foreign.csv", index=False)
    result = add_papers(path, [tmp_path / "foreign.csv"], embedder=fake_embedder, cache_dir=tmp_path / "cache")
    assert result.poorly_fitting >= 10
    assert result.rebuild_suggested
    assert read_build(path).papers["fits_poorly"].iloc[30:].sum() == result.poorly_fitting


def test_adding_to_a_build_without_a_model_is_one_line(tiny_build_v1, tmp_path, capsys):
    (tmp_path / "new.csv").write_text("abstract\nA new paper on graphs.\n", encoding="utf-8")
    assert main(["add", str(tiny_build_v1), str(tmp_path / "new.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert "no fitted model" in err
    assert err.count("\n") == 1


@pytest.fixture
def tiny_build_v1(tmp_path):
    from tests.dashboard.tinybuild import tiny_papers, tiny_topics
    from topic_explorer.pipeline.buildfolder.write import write_build

    papers = tiny_papers()
    return write_build(tmp_path / "tiny", papers, tiny_topics(), np.zeros((len(papers), 4), np.float32), {})


def test_the_add_command_prints_what_it_did(built, tmp_path, capsys, monkeypatch, fake_embedder):
    path, table = built
    table.tail(8).to_csv(tmp_path / "new.csv", index=False)
    monkeypatch.setattr("topic_explorer.pipeline.run.add.embedder_for", lambda *args, **kwargs: fake_embedder)
    code = main(["add", str(path), str(tmp_path / "new.csv"), "--cache-dir", str(tmp_path / "cache")])
    out = capsys.readouterr().out
    assert code == 0
    assert "Added 8 papers to build (now 38)" in out
    assert "topics that grew" in out


def test_an_unknown_build_is_one_line(tmp_path, capsys):
    (tmp_path / "new.csv").write_text("abstract\nA paper.\n", encoding="utf-8")
    assert main(["add", str(tmp_path / "nowhere"), str(tmp_path / "new.csv")]) == 2
    assert "no build at" in capsys.readouterr().err


def test_user_error_is_raised_for_a_build_made_by_another_embedder(built, tmp_path):
    path, table = built  # made with the test's fake embedder, which `add` cannot recreate
    table.tail(8).to_csv(tmp_path / "new.csv", index=False)
    with pytest.raises(UserError, match="cannot add to"):
        add_papers(path, [tmp_path / "new.csv"], cache_dir=tmp_path / "cache")


@pytest.mark.parametrize("progress", [False, True], ids=["quiet", "with-progress-bar"])
def test_a_quiet_add_of_several_batches_caches_each_papers_own_vector(built, tmp_path, fake_embedder, progress):
    """Regression: `add` once matched batch results to texts by the progress bar's count, which a
    disabled (quiet) bar never advances, so every batch's vectors were cached under the first batch's texts."""
    path, table = built
    new = table.head(30).assign(abstract=[f"{a} Added copy {i}." for i, a in enumerate(table["abstract"].head(30))])
    new.to_csv(tmp_path / "new.csv", index=False)
    cache_dir = tmp_path / "cache"
    add_papers(
        path, [tmp_path / "new.csv"], embedder=fake_embedder, cache_dir=cache_dir, batch_size=10, progress=progress
    )
    build = read_build(path)
    assert len(fake_embedder.calls) >= 3  # the 30 new papers went through at least three batches
    added = build.papers["fit_sample"].to_numpy() == False  # noqa: E712
    texts = build.papers.loc[added, "abstract"].tolist()
    cached = EmbeddingCache(cache_dir, fake_embedder.name).get(texts)
    assert len(texts) == 30
    assert all(vector is not None for vector in cached)
    np.testing.assert_array_equal(np.stack(cached), build.embeddings()[added])
    np.testing.assert_array_equal(np.stack(cached), fake_embedder.transform(texts))


def test_added_papers_get_the_rows_a_build_gives_them(metadata_corpus, tmp_path, fake_embedder):
    """`build` and `add` make paper rows by one route: papers outside a build's fit sample, added instead to a
    build of that sample alone, get the same rows, titles derived from the abstract included."""
    table = pd.read_csv(metadata_corpus)
    table.loc[table.index % 4 == 0, "title"] = ""  # derived from the abstract, on both sides
    table.to_csv(tmp_path / "all.csv", index=False)
    settings = BuildSettings(cache_dir=tmp_path / "cache", fit_sample=24, batch_size=5)
    whole = read_build(run_build([tmp_path / "all.csv"], tmp_path / "whole", settings, embedder=fake_embedder).path)
    in_sample = whole.papers["fit_sample"].to_numpy()
    table[in_sample].to_csv(tmp_path / "sample.csv", index=False)
    table[~in_sample].to_csv(tmp_path / "rest.csv", index=False)
    path = run_build([tmp_path / "sample.csv"], tmp_path / "part", settings, embedder=fake_embedder).path
    add_papers(path, [tmp_path / "rest.csv"], embedder=fake_embedder, cache_dir=tmp_path / "cache", batch_size=3)
    added = read_build(path).papers.iloc[int(in_sample.sum()) :].reset_index(drop=True)
    built_rows = whole.papers[~in_sample].reset_index(drop=True)
    assert (built_rows["title"] != "").all()
    assert len(added) == 38 - 24
    pd.testing.assert_frame_equal(added, built_rows, check_dtype=False)
