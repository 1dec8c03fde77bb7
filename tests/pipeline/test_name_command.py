"""`topic-explorer name`: names from an OpenAI-compatible server, stored as edits, against a real local server.

The server is a small OpenAI-compatible endpoint this file starts on 127.0.0.1 (a free port, a thread): real HTTP,
canned replies in the order the requests come (the topics by id, then the themes), and hostile ones. Nothing
here contacts anything but 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import FakeEmbedder
from topic_explorer.pipeline.buildfolder import edits
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.schema import TOPICS_FILE
from topic_explorer.pipeline.cli.main import main
from topic_explorer.pipeline.describe.chat import NotAName, clean_name, endpoint_url
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.run.build import run_build
from topic_explorer.pipeline.settings import BuildSettings
from topic_explorer.pipeline.view.levels import broader_labels, build_levels

Reply = str | Callable[[http.server.BaseHTTPRequestHandler], None]


class ChatServer:
    """An OpenAI-compatible chat endpoint on loopback: the n-th request gets `replies[n]` (then `default`).

    A reply is the message's text, or a function that answers the request itself (a status, a delay, bad JSON).
    Every request's path, headers and JSON body are kept in `requests`.
    """

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.default: Reply = "Default name"
        self.requests: list[dict] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                number = len(server.requests)
                server.requests.append({"path": self.path, "headers": dict(self.headers), "body": json.loads(body)})
                reply = server.replies[number] if number < len(server.replies) else server.default
                if callable(reply):
                    reply(self)
                else:
                    send(self, 200, completion(reply))

            def log_message(self, *args: object) -> None:  # quiet
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def prompts(self) -> list[str]:
        return [r["body"]["messages"][-1]["content"] for r in self.requests]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def completion(text: str) -> bytes:
    message = {"role": "assistant", "content": text}
    return json.dumps({"object": "chat.completion", "choices": [{"index": 0, "message": message}]}).encode()


def send(handler: http.server.BaseHTTPRequestHandler, status: int, body: bytes, **headers: str) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def slow(handler: http.server.BaseHTTPRequestHandler) -> None:
    time.sleep(3)  # beyond the tests' --timeout 1
    with contextlib.suppress(OSError):  # the client has gone
        send(handler, 200, completion("Too late"))


def status(code: int, body: bytes = b'{"error": {"message": "model crashed"}}', **headers: str) -> Reply:
    return lambda handler: send(handler, code, body, **headers)


def not_json(handler: http.server.BaseHTTPRequestHandler) -> None:
    send(handler, 200, b"<html><body>Bad gateway</body></html>")


@pytest.fixture(autouse=True)
def temporary_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TOPIC_EXPLORER_CACHE", str(tmp_path / "cache"))
    for variable in ("LLM_KEY", "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture(scope="module")
def fake_build(tmp_path_factory) -> Path:
    """The bundled sample built with the fake embedder (seconds): 11 topics and a topic tree."""
    folder = tmp_path_factory.mktemp("name-command")
    out = folder / "sample"
    run_build([], out, BuildSettings(cache_dir=folder / "cache"), embedder=FakeEmbedder())
    return out


@pytest.fixture
def build(fake_build, tmp_path) -> Path:
    return Path(shutil.copytree(fake_build, tmp_path / "build"))


@pytest.fixture
def server() -> Iterator[ChatServer]:
    chat = ChatServer()
    yield chat
    chat.close()


def offline(build: Path) -> tuple[dict[int, str], dict[int, str]]:
    """The build's own names (no edits): topic id -> label, and theme group id -> label (groups of 2+ topics)."""
    made = read_build(build, with_edits=False)
    tree = made.hierarchy.sort_values(["level", "group_id"], kind="stable")
    themes = tree[tree["topic_ids"].map(len) >= 2].drop_duplicates("group_id")
    return dict(zip(made.topics["topic_id"], made.topics["label"], strict=True)), dict(
        zip(themes["group_id"], themes["label"], strict=True)
    )


def name(build: Path, server_url: str, *options: str) -> int:
    return main(["name", str(build), "--llm", server_url, "--model", "test-model", "--timeout", "1", *options])


def test_names_are_stored_as_edits_that_the_reader_and_the_dashboards_levels_show(build, server, capsys):
    topics, themes = offline(build)
    server.replies = [f'Name: "Topic name {t}".' for t in sorted(topics)]
    server.replies += [f"**Theme name {g}**" for g in themes]

    assert name(build, server.url) == 0

    shown = read_build(build)
    assert dict(zip(shown.topics["topic_id"], shown.topics["label"], strict=True)) == {
        t: f"Topic name {t}" for t in topics
    }
    assert (shown.papers["topic_label"] == "Topic name " + shown.papers["topic_id"].astype(str)).all()
    levels = build_levels(shown.papers, shown.topics, shown.hierarchy)  # what the dashboard and exports draw
    assert len(levels) > 2
    for level in levels[:-1]:
        groups = dict(zip(level.topics["topic_id"], level.topics["label"], strict=True))
        assert {g: groups[g] for g, held in level.members.items() if len(held) > 1} == {
            g: f"Theme name {g}" for g, held in level.members.items() if len(held) > 1
        }
    broader = broader_labels(levels, 0)
    broadest = levels[0].members  # a broad theme of one topic (the tree is as unbalanced as the field) is that topic
    assert set(broader.values()) == {
        f"Theme name {g}" if len(held) > 1 else f"Topic name {held[0]}" for g, held in broadest.items()
    }
    assert main(["export", str(build), "--out", str(build.parent / "map.html")]) == 0
    page = (build.parent / "map.html").read_text(encoding="utf-8")
    assert "Topic name 0" in page
    assert f"Theme name {next(g for g, held in broadest.items() if len(held) > 1)}" in page
    kinds = [e["kind"] for e in edits.read_edits(build)]
    assert kinds == ["rename"] * len(topics) + ["rename_theme"] * len(themes)
    by = {entry["by"] for entry in edits.read_history(build)}
    assert by == {"topic-explorer name (test-model)"}
    out = capsys.readouterr()
    assert f'topic 0 "{topics[0]}" -> "Topic name 0"' in out.out.splitlines()
    assert f"{len(topics)} of {len(topics)} topics and {len(themes)} of {len(themes)} themes named" in out.err


def test_undo_takes_back_the_names_one_at_a_time_down_to_the_offline_ones(build, server):
    topics, themes = offline(build)
    server.replies = [f"Topic name {t}" for t in sorted(topics)] + [f"Theme name {g}" for g in themes]
    assert name(build, server.url) == 0
    last_theme = list(themes)[-1]

    edits.undo_last(build, by="a reader")
    after_one = read_build(build)
    assert set(after_one.hierarchy.loc[after_one.hierarchy["group_id"] == last_theme, "label"]) == {themes[last_theme]}
    assert set(after_one.topics["label"]) == {f"Topic name {t}" for t in topics}

    for _ in range(len(topics) + len(themes) - 1):
        edits.undo_last(build, by="a reader")
    restored = read_build(build)
    assert dict(zip(restored.topics["topic_id"], restored.topics["label"], strict=True)) == topics
    assert restored.hierarchy["label"].tolist() == read_build(build, with_edits=False).hierarchy["label"].tolist()


def test_a_dry_run_prints_old_and_new_names_and_writes_nothing(build, server, capsys):
    topics, themes = offline(build)
    server.default = "Shiny new name"
    before = {p: p.read_bytes() for p in build.rglob("*") if p.is_file()}

    assert name(build, server.url, "--dry-run") == 0

    assert {p: p.read_bytes() for p in build.rglob("*") if p.is_file()} == before
    assert not (build / edits.EDITS_FILE).exists()
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f'topic {t} "{label}" -> "Shiny new name"' for t, label in sorted(topics.items())] + [
        f'theme {g} "{label}" -> "Shiny new name"' for g, label in themes.items()
    ]


def test_a_request_sends_keywords_and_central_titles_but_no_abstracts(build, server):
    made = read_build(build)
    assert name(build, server.url) == 0

    first = server.requests[0]
    assert first["path"] == "/v1/chat/completions"
    assert first["body"]["model"] == "test-model"
    assert [m["role"] for m in first["body"]["messages"]] == ["system", "user"]
    prompt = server.prompts()[0]
    topic = made.topics.set_index("topic_id").loc[0]
    for keyword in list(topic["keywords"])[:10]:
        assert keyword in prompt
    papers = made.papers[made.papers["topic_id"] == 0].sort_values("confidence", ascending=False)
    for title in papers["title"].head(5):
        assert " ".join(title.split())[:100] in prompt
    sent = "\n".join(server.prompts())
    for abstract in made.papers["abstract"]:
        assert abstract[:60] not in sent
    assert len(server.requests) == len(made.topics) + len(offline(build)[1])


def test_abstracts_are_sent_only_when_asked(build, server):
    made = read_build(build)
    assert name(build, server.url, "--with-abstracts", "--dry-run") == 0
    central = made.papers[made.papers["topic_id"] == 0].sort_values("confidence", ascending=False).iloc[0]
    assert " ".join(central["abstract"].split())[:60] in server.prompts()[0]


def test_the_api_key_is_sent_only_with_api_key_env(build, server, monkeypatch):
    assert name(build, server.url, "--dry-run") == 0
    assert all("Authorization" not in r["headers"] for r in server.requests)

    monkeypatch.setenv("LLM_KEY", "sk-test-123")
    server.requests.clear()
    assert name(build, server.url, "--dry-run", "--api-key-env", "LLM_KEY") == 0
    assert server.requests
    assert {r["headers"].get("Authorization") for r in server.requests} == {"Bearer sk-test-123"}


def test_an_unset_key_variable_is_one_line_and_sends_nothing(build, server, capsys):
    assert name(build, server.url, "--api-key-env", "LLM_KEY") == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["error: --api-key-env LLM_KEY: that environment variable is not set or is empty"]
    assert server.requests == []


HOSTILE: list[tuple[Reply, str]] = [
    (slow, "no reply within 1 s"),
    (status(500), "HTTP 500"),
    (not_json, "the reply is not JSON"),
    ("I'm sorry, but I can't help with naming this topic.", "the model declined"),
    ("word " * 400, "too long for a name (1,999 characters"),
    ("Federated learning\n\nThis topic covers many papers about clients.", "has 2 lines, not one name"),
    ("", "the reply is empty"),
    ('{"name": ["Federated", {"learning": null}]}', "code or JSON"),
    (status(200, b'{"choices": []}'), "not a chat completion"),
]


def test_hostile_replies_each_give_one_line_and_keep_the_topics_name(build, server, capsys):
    topics, themes = offline(build)
    assert len(topics) > len(HOSTILE)
    server.replies = [reply for reply, _ in HOSTILE]
    server.default = "A good name"

    assert name(build, server.url) == 0

    err = capsys.readouterr().err.splitlines()
    assert len(err) == len(HOSTILE) + 1  # one per problem, then the summary
    for line, (topic, (_, problem)) in zip(err, enumerate(HOSTILE), strict=False):
        assert line.startswith(f'topic {topic} "{topics[topic]}": ')
        assert problem in line
        assert line.endswith("; kept its name")
    assert err[-1].startswith(f"{len(topics) - len(HOSTILE)} of {len(topics)} topics and {len(themes)} of")
    shown = read_build(build).topics.set_index("topic_id")["label"]
    assert [shown[t] for t in range(len(HOSTILE))] == [topics[t] for t in range(len(HOSTILE))]
    assert set(shown.drop(index=range(len(HOSTILE)))) == {"A good name"}


def test_nothing_named_exits_non_zero_and_writes_nothing(build, server, capsys):
    topics, themes = offline(build)
    server.default = "Sorry, I cannot do that."

    assert name(build, server.url) == 1

    err = capsys.readouterr().err.splitlines()
    assert len(err) == len(topics) + len(themes) + 1
    assert all("the model declined" in line for line in err[:-1])
    assert err[-1] == (
        f"nothing was named (0 of {len(topics)} topics and 0 of {len(themes)} themes named by test-model); "
        "the build is unchanged"
    )
    assert not (build / edits.EDITS_FILE).exists()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_server_stops_after_one_line_and_exits_non_zero(build, capsys):
    topics, themes = offline(build)
    port = closed_port()

    assert name(build, f"http://127.0.0.1:{port}/v1") == 1

    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3
    assert err[0] == (
        f'topic 0 "{topics[0]}": could not reach http://127.0.0.1:{port}/v1/chat/completions '
        "(connection refused: is the server running?); kept its name"
    )
    assert err[1] == f"stopped asking: the other {len(topics) + len(themes) - 1} topics and themes keep their names"
    assert err[2].startswith("nothing was named")
    assert not (build / edits.EDITS_FILE).exists()


@pytest.mark.parametrize(
    ("reply", "hint"),
    [
        (status(404, b'{"error": {"message": "model \\"test-model\\" not found"}}'), "check --llm"),
        (status(401, b'{"error": "bad key"}'), "check --api-key-env"),
        (status(307, b"", Location="http://127.0.0.1:1/elsewhere"), "points to 'http://127.0.0.1:1/elsewhere'"),
    ],
)
def test_a_refused_address_key_or_model_stops_after_the_first_request(build, server, capsys, reply, hint):
    server.default = reply
    assert name(build, server.url) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(server.requests) == 1
    assert hint in err[0]
    assert err[1].startswith("stopped asking: ")


def test_a_second_run_renames_again_on_top_of_the_first(build, server):
    topics, themes = offline(build)
    assert name(build, server.url) == 0
    server.default = "Second opinion"
    assert name(build, server.url) == 0
    assert set(read_build(build).topics["label"]) == {"Second opinion"}
    assert len(edits.read_edits(build)) == 2 * (len(topics) + len(themes))


def test_topics_named_with_topics_keep_their_names(build, server):
    topics, themes = offline(build)
    table = pd.read_parquet(build / TOPICS_FILE)
    table.loc[table["topic_id"] == 0, "named"] = True  # as `build --topics` marks a topic it was given
    table.to_parquet(build / TOPICS_FILE, index=False)
    server.default = "Model name"

    assert name(build, server.url) == 0

    assert len(server.requests) == len(topics) - 1 + len(themes)
    shown = read_build(build).topics.set_index("topic_id")["label"]
    assert shown[0] == topics[0]
    assert set(shown.drop(index=0)) == {"Model name"}


@pytest.mark.parametrize(
    "options",
    [
        ["--llm", "localhost:11434", "--model", "m"],
        ["--llm", "ftp://127.0.0.1/v1", "--model", "m"],
        ["--llm", "http://127.0.0.1:9/v1", "--model", " "],
        ["--llm", "http://127.0.0.1:9/v1", "--model", "m", "--timeout", "0"],
        ["--llm", "http://127.0.0.1:9/v1", "--model", "m", "--timeout", "nan"],
    ],
)
def test_bad_options_give_one_line_and_exit_2(build, capsys, options):
    assert main(["name", str(build), *options]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith("error: --")


def test_a_missing_build_is_one_line(tmp_path, server, capsys):
    assert name(tmp_path / "nowhere", server.url) == 2
    assert capsys.readouterr().err.startswith(f"error: no build at {tmp_path / 'nowhere'}")
    assert server.requests == []


@pytest.mark.parametrize(
    ("given", "url"),
    [
        ("http://localhost:11434/v1", "http://localhost:11434/v1/chat/completions"),
        ("http://localhost:11434/v1/", "http://localhost:11434/v1/chat/completions"),
        ("https://api.example.org/v1/chat/completions", "https://api.example.org/v1/chat/completions"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/chat/completions"),
    ],
)
def test_the_endpoint_is_the_url_plus_chat_completions_unless_it_ends_so(given, url):
    assert endpoint_url(given) == url


def test_an_address_with_a_query_is_refused():
    with pytest.raises(UserError, match="without '\\?'"):
        endpoint_url("http://localhost:11434/v1?key=x")


@pytest.mark.parametrize(
    ("reply", "cleaned"),
    [
        ("Federated learning", "Federated learning"),
        ('  "Federated learning."  ', "Federated learning"),
        ("Name: LoRA (low-rank adaptation)", "LoRA (low-rank adaptation)"),
        ("Topic label: “KV cache compression”", "KV cache compression"),
        ("**RLHF and preference optimisation**", "RLHF and preference optimisation"),
        ("- Learning theory;", "Learning theory"),
        ("<think>keywords say regret bounds</think>\nLearning theory", "Learning theory"),
        ("Vision: 3D, video and medical imaging", "Vision: 3D, video and medical imaging"),
        ("Topic-aware retrieval", "Topic-aware retrieval"),
        ("'Offline RL and imitation learning'!", "Offline RL and imitation learning"),
        ("Quantum\x1b[31m computing", "Quantum [31m computing"),
    ],
)
def test_a_reply_is_cleaned_to_a_name(reply, cleaned):
    assert clean_name(reply) == cleaned


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("", "empty"),
        ("   \n  ", "empty"),
        ("I'm sorry, I can't help with that.", "declined"),
        ("As an AI language model, I would call it learning.", "declined"),
        ("Learning\nExplanation: the papers study learning.", "2 lines"),
        ('{"name": "Learning"}', "code or JSON"),
        ("a " * 41, "too long"),
        ("one two three four five six seven eight nine ten eleven", "too long"),
        ("<think>still thinking about it", "unfinished reasoning"),
        ("...", "no words"),
    ],
)
def test_a_reply_that_is_not_a_name_is_refused_with_its_reason(reply, problem):
    with pytest.raises(NotAName, match=problem):
        clean_name(reply)


def test_a_theme_rename_reads_back_and_the_dashboard_describes_it_for_undo(build):
    from topic_explorer.dashboard.ui.curation import describe

    group = int(read_build(build).hierarchy["group_id"].iloc[0])
    edits.add_edit(build, edits.rename_theme(group, "  Vision:   3D and video "), by="a reader")
    shown = read_build(build).hierarchy
    assert set(shown.loc[shown["group_id"] == group, "label"]) == {"Vision: 3D and video"}
    assert describe(edits.read_edits(build)[-1], {}) == "renamed a theme to “Vision: 3D and video”"


def test_a_malformed_theme_rename_in_the_edits_file_is_one_line(build, capsys):
    edit = {"kind": "rename_theme", "group_id": "12", "label": "Vision"}
    (build / edits.EDITS_FILE).write_text(json.dumps({"edits": [edit], "history": []}), encoding="utf-8")
    assert main(["evaluate", str(build)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"error: {build / edits.EDITS_FILE} has edit 1 (rename_theme) with a wrong 'group_id': "
                   "delete it to see the build without its edits"]  # fmt: skip
