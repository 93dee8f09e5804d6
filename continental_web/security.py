"""What the web table refuses before a route runs, and the headers every answer carries.

The table listens on the loopback address by default, so its attackers are other pages open in
the same browser (a request to ``http://127.0.0.1:8000`` from any site) and DNS rebinding (a
foreign name resolved to 127.0.0.1). Hence:

* ``Host`` must name this server (Starlette's ``TrustedHostMiddleware``; see ``create_app``);
* a state-changing request (``POST``) must come from the page's own origin (``Origin`` and
  ``Sec-Fetch-Site`` checked when the browser sends them; a non-browser client sends neither)
  and be ``application/json``, which a foreign page cannot send without a CORS preflight that
  this server never answers;
* request bodies are read as they stream and refused past a size (``read_json``), JSON nested
  too deep is a 400, and every answer carries a content security policy that allows the page's
  own scripts and styles only, forbids framing, and turns off type sniffing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from continental_web.errors import WebError
from continental_web.games import valid_text

MAX_BODY = 1_000_000  # bytes; the longest game's replay file is far smaller
MAX_DEPTH = 12  # nesting of a request's JSON; a replay file needs 4
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
LOG = logging.getLogger("continental_web")


class GuardMiddleware:
    """Refuse cross-origin and non-JSON state-changing requests; add the security headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                for key, value in SECURITY_HEADERS.items():
                    if key.lower().encode() not in present:
                        headers.append((key.lower().encode(), value.encode()))
                message = {**message, "headers": headers}
            await send(message)

        refusal = self.refusal(scope)
        if refusal is not None:
            status, message = refusal
            response = JSONResponse({"error": message}, status_code=status)
            await response(scope, receive, send_with_headers)
            return
        started = False

        async def send_tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send_with_headers(message)

        try:
            await self.app(scope, receive, send_tracked)
        except Exception as exc:
            # Answered here, inside this middleware, so that a failure carries the security
            # headers too; never a traceback or a server path in the answer.
            LOG.exception("request failed: %s %s", scope["method"], scope.get("path", ""))
            if started:
                raise
            message = f"the server failed ({type(exc).__name__})"
            await JSONResponse({"error": message}, status_code=500)(scope, receive, send_tracked)

    @staticmethod
    def refusal(scope: Scope) -> tuple[int, str] | None:
        """``(status, message)`` for a request to refuse, else None."""
        if scope["method"] in SAFE_METHODS:
            return None
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        origin = headers.get("origin")
        if origin is not None and origin != f"{scope.get('scheme', 'http')}://{host}":
            return 403, "cross-origin request refused: only the table's own page may play"
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return 403, f"cross-site request ({site}) refused: only the table's own page may play"
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return 415, "a request that changes something must be sent as application/json"
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            return 413, f"request body over {MAX_BODY} bytes"
        return None


def depth(value: Any) -> int:
    """How deep ``value`` nests lists and dicts (iteratively: no recursion on hostile input)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            children: Iterable[Any] = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


async def read_json(request: Request, limit: int = MAX_BODY) -> dict[str, Any]:
    """The request's JSON object, read as it streams: WebError 413 as soon as it passes
    ``limit`` bytes, 400 for text that is not a JSON object or nests over ``MAX_DEPTH``."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise WebError(413, f"request body over {limit} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    try:
        data = json.loads(raw or b"{}")
    except RecursionError:
        raise WebError(400, f"request body nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise WebError(400, f"request body is not JSON: {str(exc)[:120]}") from None
    if not isinstance(data, dict):
        raise WebError(400, "request body must be a JSON object")
    if depth(data) > MAX_DEPTH:
        raise WebError(400, f"request body nests deeper than {MAX_DEPTH} levels")
    bad = invalid_text(data)
    if bad is not None:
        where, text = bad
        raise WebError(
            400,
            f"request body: {where} {text[:30]!r} is not valid text (it holds a lone surrogate, "
            "which no UTF-8 text can)",
        )
    return data


def invalid_text(value: Any) -> tuple[str, str] | None:
    """The first string (key or value) in ``value`` that is not valid text, with where it is
    (``name``, ``names[1]``, ``key``), else None; iteratively, like ``depth``."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if not valid_text(item):
                return where or "a string", item
        elif isinstance(item, dict):
            for key, child in item.items():
                if not valid_text(key):
                    return "a key", key
                stack.append((child, f"{where}.{key}" if where else key))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{i}]") for i, child in enumerate(item))
    return None
