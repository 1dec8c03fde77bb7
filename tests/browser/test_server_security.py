"""The running server's own protections stay on: XSRF tokens, and no WebSocket from another site.

These talk HTTP to the real server (no browser needed): a page on another site, open in the user's browser,
must not be able to drive the dashboard or read the papers through it.
"""

from __future__ import annotations

import base64
import http.client
import os
import urllib.error
import urllib.request
from urllib.parse import urlparse

XSRF_COOKIE = "_streamlit_xsrf"


def websocket_handshake(url: str, origin: str) -> int:
    """The HTTP status of a WebSocket upgrade to the app's stream sent with `origin` (101 means accepted)."""
    address = urlparse(url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    connection.request(
        "GET",
        "/_stcore/stream",
        headers={
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Protocol": "streamlit",
            "Origin": origin,
        },
    )
    status = connection.getresponse().status
    connection.close()
    return status


def test_the_server_hands_out_an_xsrf_cookie(server):
    with urllib.request.urlopen(f"{server}/_stcore/health", timeout=10) as response:
        cookies = response.headers.get_all("Set-Cookie") or []
    assert any(cookie.startswith(f"{XSRF_COOKIE}=") for cookie in cookies), cookies


def test_a_write_request_without_the_xsrf_token_is_forbidden(server):
    request = urllib.request.Request(f"{server}/_stcore/upload_file/some-session/some-file", data=b"x", method="PUT")
    try:
        urllib.request.urlopen(request, timeout=10)
        status = 200
    except urllib.error.HTTPError as error:
        status = error.code
    assert status == 403  # with XSRF protection off, the same request gets 400 (unknown session)


def test_a_websocket_from_another_site_is_refused_and_one_from_the_page_is_accepted(server):
    assert websocket_handshake(server, "http://evil.example") == 403
    assert websocket_handshake(server, server) == 101
