"""``llm:BASE_URL``: a text agent that asks an OpenAI-compatible chat endpoint for each move.

Each decision with more than one legal action is one request, ``POST BASE_URL/chat/completions``
with ``{"model": M, "messages": [system, user], "temperature": 0}`` (``agents.text.prompt``); the
reply is read by ``agents.text.parse``. A reply that names no legal action, or a request that
still fails after its retries, is played by the fallback bot instead and counted. A decision with
one legal action is played without asking.

Settings (``LLMOptions``; ``--llm-model``, ``--llm-fallback``, ``--llm-timeout``,
``--llm-retries`` on the command line) hold for every text agent of an evaluation; they reach the
agents through ``llm_options`` (forked worker processes inherit them). The key is read from the
environment variable ``CONTINENTAL_LLM_API_KEY``, else ``OPENAI_API_KEY``, when an agent is built,
sent as ``Authorization: Bearer KEY`` and never printed or written to a report. Requests to a
loopback address bypass any proxy set in the environment.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import os
import sys
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

from agents.text.parse import parse_reply
from agents.text.prompt import GamePrompt, legal_texts, messages

PREFIX = "llm:"
KEY_VARIABLES = ("CONTINENTAL_LLM_API_KEY", "OPENAI_API_KEY")  # the first one set is used
MAX_REPLY_BYTES = 1 << 20  # a chat answer is small; a larger body is not read past this


@dataclass(frozen=True)
class LLMOptions:
    """The settings of every text agent of an evaluation."""

    model: str  # the endpoint's model name (``--llm-model``)
    fallback: str = "greedy"  # the registry bot that plays a reply naming no legal action
    timeout: float = 30.0  # seconds a request may wait for the endpoint
    retries: int = 2  # further tries after a request fails (no answer, 429 or 5xx)
    backoff: float = 1.0  # seconds before the first retry, doubled before each next one

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model.strip():
            raise ValueError(f"--llm-model {self.model!r}: give the endpoint's model name")
        if not isinstance(self.fallback, str) or not self.fallback.strip():
            raise ValueError(f"--llm-fallback {self.fallback!r}: give a bot's name")
        if self.fallback.startswith(PREFIX) or "oracle" in self.fallback.lower():
            raise ValueError(
                f"--llm-fallback {self.fallback!r}: the fallback is a bot of the registry that "
                "plays from the seat's view (greedy, strong ...), not a text agent or an oracle"
            )
        if not isinstance(self.timeout, int | float) or not 0 < self.timeout <= 600:
            raise ValueError(f"--llm-timeout {self.timeout!r}: must be in (0, 600] seconds")
        if not isinstance(self.retries, int) or not 0 <= self.retries <= 10:
            raise ValueError(f"--llm-retries {self.retries!r}: must be an integer in 0..10")
        if not isinstance(self.backoff, int | float) or not 0 <= self.backoff <= 60:
            raise ValueError(f"backoff {self.backoff!r}: must be in [0, 60] seconds")

    def to_dict(self) -> dict[str, Any]:
        """The settings as a report records them (the key is never among them)."""
        return asdict(self)


# The settings of the evaluation under way (``llm_options``); forked workers inherit them.
_OPTIONS: list[LLMOptions | None] = [None]


@contextmanager
def llm_options(options: LLMOptions | None) -> Iterator[None]:
    """Make ``options`` the text agents' settings for the duration."""
    before = _OPTIONS[0]
    _OPTIONS[0] = options
    try:
        yield
    finally:
        _OPTIONS[0] = before


def current_options() -> LLMOptions | None:
    """The text agents' settings now in force (``llm_options``), or None."""
    return _OPTIONS[0]


def is_text_agent(name: str) -> bool:
    """Whether ``name`` names a text agent (``llm:BASE_URL``)."""
    return isinstance(name, str) and name.startswith(PREFIX)


def base_url(name: str) -> str:
    """The endpoint of ``llm:BASE_URL`` without a trailing slash; ValueError naming a malformed
    one."""
    url = name.removeprefix(PREFIX).rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"agent {name!r}: expected llm:BASE_URL with an http(s) URL, e.g. "
            "llm:http://127.0.0.1:8000/v1"
        )
    if parts.query or parts.fragment or any(c.isspace() for c in url):
        raise ValueError(f"agent {name!r}: the base URL takes no query, fragment or spaces")
    if parts.username is not None or parts.password is not None:
        raise ValueError(
            "an llm: agent's URL takes no user or password (the name is printed in reports); "
            "give the key in CONTINENTAL_LLM_API_KEY"
        )
    try:
        parts.port  # noqa: B018  # a port that is not a number raises here
    except ValueError:
        raise ValueError(f"agent {name!r}: the URL's port is not a number") from None
    return url


def api_key(environ: dict[str, str] | None = None) -> str | None:
    """The key of the first of ``KEY_VARIABLES`` set in the environment, or None."""
    env = os.environ if environ is None else environ
    for variable in KEY_VARIABLES:
        if env.get(variable):
            return env[variable]
    return None


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ChatError(Exception):
    """A request that got no usable answer after its retries (the message says why)."""


class ChatClient:
    """Requests to one OpenAI-compatible endpoint, each with a bounded wait and retries."""

    def __init__(
        self,
        url: str,
        options: LLMOptions,
        key: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.url = url + "/chat/completions"
        self.options = options
        parts = urlsplit(url)
        if key and parts.scheme != "https" and not _is_loopback(parts.hostname or ""):
            # A key never travels in clear: plain http is for a server on this machine.
            warnings.warn(
                f"not sending the API key to {parts.hostname} over plain http (use https)",
                RuntimeWarning,
                stacklevel=2,
            )
            key = None
        self._key = key
        self._sleep = sleep
        handlers = [urllib.request.ProxyHandler({})] if _is_loopback(urlsplit(url).hostname) else []
        self._opener = urllib.request.build_opener(*handlers)

    def complete(self, chat: list[dict[str, str]]) -> str:
        """The content of the endpoint's first choice (``""`` if it has none); ChatError once
        the request has failed ``1 + retries`` times, or at once for an answer that is not a
        chat completion or a refusal other than 429 or 5xx."""
        body = json.dumps(
            {"model": self.options.model, "messages": chat, "temperature": 0}
        ).encode()
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        wait = self.options.backoff
        for attempt in range(self.options.retries + 1):
            if attempt:
                self._sleep(wait)
                wait *= 2
            try:
                return self._post(body, headers)
            except urllib.error.HTTPError as exc:
                reason = f"HTTP {exc.code}"
                if exc.code != 429 and exc.code < 500:
                    raise ChatError(reason) from None
            except (
                OSError,
                http.client.HTTPException,
            ) as exc:  # no answer: refused, cut, timed out
                reason = str(getattr(exc, "reason", None) or exc) or type(exc).__name__
        raise ChatError(f"{reason} after {self.options.retries + 1} tries")

    def _post(self, body: bytes, headers: dict[str, str]) -> str:
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        with self._opener.open(request, timeout=self.options.timeout) as response:
            raw = response.read(MAX_REPLY_BYTES)
        try:
            content = json.loads(raw)["choices"][0]["message"].get("content")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise ChatError("the answer is not a chat completion") from None
        return content if isinstance(content, str) else ""


# Failures already said on stderr in this process (endpoint, reason): said once, counted always.
_SAID: set[tuple[str, str]] = set()


class LLMAgent:
    """A text agent: each decision asked of a chat endpoint, a reply naming no legal action
    played by ``fallback`` and counted (``text_stats``)."""

    reads_hidden_state = False

    def __init__(self, name: str, client: ChatClient, prompt: GamePrompt, fallback: Any) -> None:
        self.name = name
        self.client = client
        self.prompt = prompt
        self.fallback = fallback
        self.replies = 0  # decisions the endpoint was asked
        self.fallbacks = 0  # of them, those the fallback played (no legal action named)
        self.failed_requests = 0  # of those, the requests that got no answer at all

    def act(self, view: Any) -> int:
        """A legal action id for the seat to act, from the endpoint's reply or the fallback."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action (phase {view.phase!r})")
        if len(legal) == 1:  # no choice: nothing to ask
            return legal[0]
        self.replies += 1
        try:
            reply = self.client.complete(messages(view, self.prompt))
        except ChatError as exc:
            self.failed_requests += 1
            self._say(str(exc))
            return self._fall_back(view)
        index = parse_reply(reply, legal_texts(view))
        if index is None:
            return self._fall_back(view)
        return legal[index]

    def _fall_back(self, view: Any) -> int:
        self.fallbacks += 1
        return self.fallback.act(view)

    def _say(self, reason: str) -> None:
        if (self.client.url, reason) not in _SAID:
            _SAID.add((self.client.url, reason))
            print(
                f"{self.name}: request failed ({reason}); the fallback plays, counted (said once)",
                file=sys.stderr,
            )

    def text_stats(self) -> dict[str, int]:
        """This agent's counts so far: replies, fallbacks, failed requests."""
        return {
            "replies": self.replies,
            "fallbacks": self.fallbacks,
            "failed_requests": self.failed_requests,
        }


def make_llm_agent(
    name: str, seed: int | None, prompt: GamePrompt, fallback_of: Callable[[str, int | None], Any]
) -> LLMAgent:
    """The text agent ``llm:BASE_URL`` with the settings in force (``llm_options``) and the
    fallback ``fallback_of(name, seed)``; ValueError for a malformed URL or no settings."""
    url = base_url(name)
    options = current_options()
    if options is None:
        raise ValueError(
            f"agent {name!r} needs the endpoint's model: pass --llm-model NAME "
            "(llm=LLMOptions(model=...) in the Python API)"
        )
    try:
        fallback = fallback_of(options.fallback, seed)
    except ValueError as exc:
        raise ValueError(f"--llm-fallback {options.fallback!r}: {exc}") from None
    return LLMAgent(name, ChatClient(url, options, api_key()), prompt, fallback)


__all__ = [
    "KEY_VARIABLES",
    "PREFIX",
    "ChatClient",
    "ChatError",
    "LLMAgent",
    "LLMOptions",
    "api_key",
    "base_url",
    "current_options",
    "is_text_agent",
    "llm_options",
    "make_llm_agent",
]
