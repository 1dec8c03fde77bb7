"""One question to an OpenAI-compatible chat endpoint, and a short name read out of its reply.

Ollama, llama.cpp's server, vLLM and hosted APIs all answer OpenAI's `POST .../chat/completions`, so one
request fits them all. Standard library only (`urllib.request`): nothing to install, and nothing is sent
unless `topic-explorer name` is run. Replies are data from another program: a name is kept only when it
reads as one (one line, a few words, no refusal, no JSON), cleaned of quotes, prefixes and final stops.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import re
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

from topic_explorer.pipeline.errors import UserError

COMPLETIONS_PATH = "/chat/completions"
DEFAULT_TIMEOUT = 60.0  # seconds per request: a local model on a CPU takes several seconds per name
MAX_REPLY_BYTES = 1_000_000  # a chat reply naming one topic is a few hundred bytes
MAX_NAME_CHARS = 80
MAX_NAME_WORDS = 10
# Statuses after which every other request would fail the same way: a wrong key, address or model.
FATAL_STATUSES = {
    401: "the server refused the key; check --api-key-env",
    403: "the server refused the key; check --api-key-env",
    404: "no such endpoint or model; check --llm (it usually ends in /v1) and --model",
    405: "the address takes no chat requests; check --llm (it usually ends in /v1)",
}
REFUSALS = (
    "i'm sorry", "i am sorry", "sorry,", "i cannot", "i can't", "i can not", "i won't", "i will not",
    "i'm unable", "i am unable", "i'm not able", "as an ai", "as a language model", "unfortunately",
)  # fmt: skip
QUOTES = "\"'`“”‘’«»„"
PREFIX = re.compile(
    r"^(?:(?:a|the|short|suggested|proposed|topic|theme)\s+)*(?:name|label|title|topic|theme)(?:\s*[:=]|\s+[-–—])\s*",
    re.IGNORECASE,
)
REASONING = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)


class ChatProblem(Exception):
    """A request that got no usable reply; `fatal` when every later request would fail the same way."""

    def __init__(self, message: str, *, fatal: bool = False):
        super().__init__(message)
        self.fatal = fatal


class NotAName(ValueError):
    """A reply that does not read as a name (empty, an essay, a refusal, JSON); the message says which."""


def endpoint_url(url: str) -> str:
    """The chat-completions address for `--llm URL`: URL itself when it ends with /chat/completions, else URL + it.

    A `UserError` unless URL is an http(s) address with a host, so a typo fails before anything is sent.
    """
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(
            f"--llm {url!r}: give the server's http(s) address, e.g. http://localhost:11434/v1 (Ollama) "
            "or http://localhost:8080/v1 (llama.cpp)"
        )
    if parts.query or parts.fragment:
        raise UserError(f"--llm {url!r}: give the address without '?' or '#' parts")
    path = parts.path.rstrip("/")
    if not path.endswith(COMPLETIONS_PATH):
        path += COMPLETIONS_PATH
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))


@dataclass(frozen=True)
class ChatEndpoint:
    """An OpenAI-compatible chat-completions address (`endpoint_url`), the model to ask, and the key if any."""

    url: str
    model: str
    api_key: str | None = None
    timeout: float = DEFAULT_TIMEOUT

    def ask(self, messages: list[dict[str, str]]) -> str:
        """The model's reply to `messages` (temperature 0), as text; a `ChatProblem` saying why there is none."""
        body = json.dumps({"model": self.model, "messages": messages, "temperature": 0}).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "topic-explorer"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        deadline = time.monotonic() + self.timeout
        try:
            with _opener(self.url).open(request, timeout=self.timeout) as response:
                raw = _read(response, deadline)
        except urllib.error.HTTPError as error:
            raise _http_problem(error) from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, TimeoutError):
                raise ChatProblem(f"no reply within {self.timeout:g} s (--timeout)") from None
            raise ChatProblem(f"could not reach {self.url} ({_reason(error.reason)})", fatal=True) from None
        except TimeoutError:
            raise ChatProblem(f"no reply within {self.timeout:g} s (--timeout)") from None
        except (http.client.HTTPException, ConnectionError) as error:
            raise ChatProblem(f"the server broke off the reply ({type(error).__name__})") from None
        return _content(raw)


def clean_name(reply: str) -> str:
    """The name in a model's reply, on one line, without quotes, "Name:" prefixes or a final stop.

    A `NotAName` when the reply is not a name: empty, several lines, longer than `MAX_NAME_CHARS` or
    `MAX_NAME_WORDS`, a refusal ("I'm sorry, ..."), JSON or markup.
    """
    text = REASONING.sub("", reply)  # reasoning models think aloud first
    if "<think>" in text.lower():
        raise NotAName("the reply is unfinished reasoning, not a name")
    text = "".join(c if c.isprintable() or c == "\n" else " " for c in text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise NotAName("the reply is empty")
    if len(lines) > 1:
        raise NotAName(f"the reply has {len(lines)} lines, not one name")
    name = lines[0]
    if name.lower().replace("’", "'").startswith(REFUSALS):
        raise NotAName(f"the model declined ({_snippet(name)})")
    if name[0] in "{[" or any(c in name for c in "{}<>"):
        raise NotAName(f"the reply is code or JSON, not a name ({_snippet(name)})")
    previous = None
    while name != previous:
        previous = name
        name = re.sub(r"^[\s*#>•-]+|[\s*]+$", "", name).replace("**", "").replace("__", "")
        name = PREFIX.sub("", name).strip().strip(QUOTES).strip().rstrip(".,;:!").strip()
    name = " ".join(name.split())
    if not any(c.isalpha() for c in name):
        raise NotAName(f"the reply holds no words ({_snippet(lines[0])})")
    if len(name) > MAX_NAME_CHARS or len(name.split()) > MAX_NAME_WORDS:
        raise NotAName(
            f"the reply is too long for a name ({len(name):,} characters, {len(name.split()):,} words; "
            f"at most {MAX_NAME_CHARS} and {MAX_NAME_WORDS})"
        )
    return name


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is reported, not followed: following it could carry the key to another host."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def _opener(url: str) -> urllib.request.OpenerDirector:
    """No redirects; no proxy for a server on this machine (a proxy set for the internet cannot reach it)."""
    host = urllib.parse.urlsplit(url).hostname or ""
    proxies = urllib.request.ProxyHandler({}) if _is_loopback(host) else urllib.request.ProxyHandler()
    return urllib.request.build_opener(proxies, _NoRedirects())


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _read(response: http.client.HTTPResponse, deadline: float) -> bytes:
    """The reply's body, at most `MAX_REPLY_BYTES`, read by `deadline` (a server dripping bytes cannot stall us)."""
    chunks, size = [], 0
    while chunk := response.read(65_536):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            raise ChatProblem(f"the reply is over {MAX_REPLY_BYTES:,} bytes")
        if time.monotonic() > deadline:
            raise TimeoutError
    return b"".join(chunks)


def _content(raw: bytes) -> str:
    """The first choice's message from a chat-completions reply; a `ChatProblem` for anything else."""
    try:
        reply = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ChatProblem(f"the reply is not JSON ({_snippet(raw.decode('utf-8', 'replace'))})") from None
    try:
        message = reply["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise ChatProblem(f"the reply is not a chat completion ({_snippet(json.dumps(reply))})") from None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(message, dict) and isinstance(message.get("refusal"), str):
        raise ChatProblem(f"the model declined ({_snippet(message['refusal'])})")
    raise ChatProblem("the reply holds no text")


def _http_problem(error: urllib.error.HTTPError) -> ChatProblem:
    """What an HTTP error status means for the user, with the server's own message when it gives one."""
    with error:
        try:
            detail = error.read(4_000).decode("utf-8", "replace")
        except (OSError, http.client.HTTPException):
            detail = ""
    try:
        said = json.loads(detail)["error"]
        detail = said.get("message", "") if isinstance(said, dict) else str(said)
    except (json.JSONDecodeError, KeyError, TypeError, RecursionError):
        pass
    message = f"HTTP {error.code} {error.reason}" + (f" ({_snippet(detail)})" if detail.strip() else "")
    if 300 <= error.code < 400:
        where = error.headers.get("Location", "another address") if error.headers else "another address"
        return ChatProblem(f"{message}: it points to {_snippet(where)}; give that address with --llm", fatal=True)
    if error.code in FATAL_STATUSES:
        return ChatProblem(f"{message}: {FATAL_STATUSES[error.code]}", fatal=True)
    return ChatProblem(message)


def _reason(reason: object) -> str:
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused: is the server running?"
    if isinstance(reason, socket.gaierror):
        return "no such host"
    if isinstance(reason, ssl.SSLError):
        return f"TLS failed: {_snippet(str(reason))}"
    return _snippet(str(reason))


def _snippet(text: str, limit: int = 80) -> str:
    """A reply quoted on one line, cut to `limit` characters."""
    text = " ".join("".join(c if c.isprintable() else " " for c in str(text)).split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
