"""Text agents (``llm:BASE_URL``, ``agents.text``) against a fake OpenAI-compatible endpoint.

The endpoint is an ``http.server`` in a thread on 127.0.0.1: nothing here reaches past loopback.
Its modes: ``nonsense`` (every reply names no legal action: the illegal-reply rate is 1.0),
``legal`` (the first legal action's text, copied from the prompt's menu: rate 0.0), ``number``
(the menu number of the last action), ``500`` and ``400`` (errors), ``slow`` (answers after
the client's timeout).
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from side_helpers import swap_hidden

from agents.evaluate.harness import evaluate
from agents.evaluate.leaderboard import leaderboard
from agents.games import game_spec
from agents.registry import make_agent, make_harness_agent, text_prompt
from agents.text.__main__ import prompt_after
from agents.text.llm import ChatClient, ChatError, LLMOptions, base_url, llm_options
from agents.text.parse import parse_reply
from agents.text.prompt import messages, prompt_text

ROOT = Path(__file__).resolve().parent.parent
MENU = re.compile(r"^(\d+)\. (.+)$", re.M)


class FakeChat(ThreadingHTTPServer):
    """An OpenAI-compatible chat endpoint on loopback answering by ``mode``."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mode = "legal"
        self.delay = 0.0
        self.requests: list[dict[str, Any]] = []
        self.headers_seen: list[dict[str, str]] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: FakeChat

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:  # http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.requests.append({"path": self.path, **body})
            self.server.headers_seen.append(dict(self.headers))
        mode = self.server.mode
        if mode in ("500", "400"):
            self.send_error(int(mode))
            return
        if mode == "slow":
            time.sleep(self.server.delay)
        menu = MENU.findall(body["messages"][-1]["content"])
        content = {
            "nonsense": "Let me think about the ocean for a moment.",
            "legal": menu[0][1],
            "slow": menu[0][1],
            "number": menu[-1][0],
        }[mode]
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data.encode())


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    server = FakeChat()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def run(server: FakeChat, mode: str, jobs: int = 1, **options: Any) -> dict[str, Any]:
    """A small contract evaluation of ``llm:`` against greedy (two seats, round 1, two deals)."""
    server.mode = mode
    return evaluate(
        [f"llm:{server.url}", "greedy"], players=2, games=2, seed=3, jobs=jobs, rounds=[1],
        llm=LLMOptions(model="fake", **options),
    )  # fmt: skip


# ----------------------------------------------------------------------------- parsing

TEXTS = ["draw", "take", "discard 7C", "discard TH", "layoff JK 0", "layoff JK 0 low"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("discard 7C", "discard 7C"),  # exact
        ("  DISCARD   7c \n", "discard 7C"),  # case and spacing
        ("discard 10H", "discard TH"),  # 10 read as T
        ("I will play `take`.", "take"),  # backticks
        ('My move: "discard 7C"', "discard 7C"),  # quotes
        ("**layoff JK 0 low**", "layoff JK 0 low"),  # bold
        ("Thinking it over...\nThe discard is useless to me.\ndraw", "draw"),  # last line
        ("Action: layoff JK 0", "layoff JK 0"),  # labelled
        ("3", "discard 7C"),  # a menu number
        ("(4)", "discard TH"),
        ("I would rather discard 7C than anything else", "discard 7C"),  # contained, unique
        ("Best is layoff JK 0 low, surely", "layoff JK 0 low"),  # the inner text does not count
    ],
)
def test_a_reply_names_a_legal_action_exactly_or_tolerantly(reply: str, expected: str) -> None:
    assert TEXTS[parse_reply(reply, TEXTS)] == expected


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "Let me think about the ocean.",
        "discard 8C",  # not legal
        "either draw or take",  # two legal texts: ambiguous
        "7",  # past the menu
        "0",
        "withdraw",  # 'draw' only inside another word
    ],
)
def test_a_reply_that_names_no_legal_action_is_none(reply: str) -> None:
    assert parse_reply(reply, TEXTS) is None


# ----------------------------------------------------------------------------- the prompt


def engine_of(game: Any) -> Any:
    return type(game)


@pytest.mark.parametrize(("game", "players"), [("contract", 3), ("fifteen", 3), ("knock", 3)])
def test_the_prompt_shows_nothing_hidden_with_a_positive_control(game: str, players: int) -> None:
    spec = game_spec(game)
    options, _ = spec.rules_options({}, "continental", None) if spec.rules_options else ({}, None)
    state = spec.new_game(players, 11, options)
    bot = make_agent("greedy", 0, game)
    prompt = text_prompt(game)
    rng = random.Random(11)
    checked = changed = 0
    for step in range(60):
        if state.is_over:
            break
        if step % 3 == 0:
            seat = state.actor
            data = state.to_dict()
            before = prompt_text(spec.view(state, seat), prompt)
            variant = swap_hidden(data, seat, rng)
            assert variant["hands"] != data["hands"] or variant["stock"] != data["stock"]
            other = engine_of(state).from_dict(variant)
            assert prompt_text(spec.view(other, seat), prompt) == before, (game, step)
            checked += 1
            # Positive control: a card of the seat's own hand traded with the stock shows.
            own = copy.deepcopy(data)
            mine = own["hands"][seat]
            i = next((k for k, c in enumerate(own["stock"]) if c not in mine), None)
            if i is not None:
                j = next(k for k in range(len(mine)) if mine[k] not in own["known"][seat])
                mine[j], own["stock"][i] = own["stock"][i], mine[j]
                mine.sort()
                mine_view = spec.view(engine_of(state).from_dict(own), seat)
                changed += prompt_text(mine_view, prompt) != before
        state.apply(bot.act(spec.view(state, state.actor)))
    assert checked >= 10 and changed >= checked // 2


def test_the_prompt_lists_the_legal_actions_as_a_numbered_menu() -> None:
    spec = game_spec("contract")
    state = spec.new_game(2, 4, spec.rules_options({}, "continental", None)[0])
    view = spec.view(state, state.actor)
    chat = messages(view, text_prompt("contract"))
    assert [m["role"] for m in chat] == ["system", "user"]
    menu = MENU.findall(chat[1]["content"])
    assert [text for _, text in menu] == [view.action_to_str(a) for a in view.legal_actions]
    assert "Your hand (7 cards): " in chat[1]["content"]


def docs_prompt(text: str) -> tuple[list[str], str]:
    """The command and the prompt block of docs/llm-agents.md's 'What the model is shown'."""
    block = re.search(r"<!-- prompt -->\n```text\n\$ (.+?)\n(.*?)```", text, re.S)
    assert block, "docs/llm-agents.md lost its prompt block"
    return block.group(1).split(), block.group(2)


def test_the_prompt_in_the_docs_is_the_one_the_code_gives() -> None:
    command, shown = docs_prompt((ROOT / "docs" / "llm-agents.md").read_text())
    assert command[:3] == ["python", "-m", "agents.text"]
    args = dict(zip(command[3::2], command[4::2], strict=True))
    made = prompt_after(
        args["--game"], int(args["--players"]), int(args["--seed"]), int(args["--moves"])
    )
    assert shown == made + "\n"


# ----------------------------------------------------------------------------- the agent


def test_nonsense_replies_all_fall_back_and_the_rate_is_one(chat: FakeChat) -> None:
    report = run(chat, "nonsense")
    text = report["agents"][f"llm:{chat.url}"]["text"]
    assert text["replies"] > 0 and text["replies"] == len(chat.requests)
    assert text["fallbacks"] == text["replies"] and text["failed_requests"] == 0
    assert text["illegal_reply_rate"] == 1.0
    assert "text" not in report["agents"]["greedy"]
    assert report["config"]["llm"]["model"] == "fake"
    request = chat.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["model"] == "fake" and request["temperature"] == 0
    assert [m["role"] for m in request["messages"]] == ["system", "user"]


def test_legal_replies_never_fall_back_and_the_rate_is_zero(chat: FakeChat) -> None:
    report = run(chat, "legal")
    text = report["agents"][f"llm:{chat.url}"]["text"]
    assert text["replies"] == len(chat.requests) > 0
    assert text["fallbacks"] == 0 and text["illegal_reply_rate"] == 0.0


def test_menu_numbers_are_read_as_the_actions_they_number(chat: FakeChat) -> None:
    report = run(chat, "number")
    assert report["agents"][f"llm:{chat.url}"]["text"]["illegal_reply_rate"] == 0.0


def test_server_errors_are_retried_a_bounded_number_of_times_then_fall_back(
    chat: FakeChat,
) -> None:
    report = run(chat, "500", retries=1, backoff=0.0)
    text = report["agents"][f"llm:{chat.url}"]["text"]
    assert text["replies"] > 0 and len(chat.requests) == 2 * text["replies"]  # 1 try + 1 retry
    assert text["failed_requests"] == text["fallbacks"] == text["replies"]
    assert text["illegal_reply_rate"] == 1.0


def test_a_client_error_is_not_retried(chat: FakeChat) -> None:
    chat.mode = "400"
    client = ChatClient(chat.url, LLMOptions(model="fake", retries=3, backoff=0.0))
    with pytest.raises(ChatError, match="HTTP 400"):
        client.complete([{"role": "user", "content": "hi"}])
    assert len(chat.requests) == 1


def test_a_timed_out_request_is_retried_then_the_fallback_plays(chat: FakeChat) -> None:
    chat.mode, chat.delay = "slow", 2.0
    options = LLMOptions(model="fake", timeout=0.2, retries=1, backoff=0.0)
    spec = game_spec("contract")
    state = spec.new_game(2, 4, spec.rules_options({}, "continental", None)[0])
    view = spec.view(state, state.actor)
    with llm_options(options):
        agent = make_harness_agent(f"llm:{chat.url}", 1, "contract")
    action = agent.act(view)
    assert action == make_agent("greedy", 1, "contract").act(view)  # the fallback's move
    assert agent.text_stats() == {"replies": 1, "fallbacks": 1, "failed_requests": 1}
    assert len(chat.requests) == 2


def test_the_key_is_sent_from_the_environment_and_never_reported(
    chat: FakeChat, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONTINENTAL_LLM_API_KEY", "sk-test-secret")
    report = run(chat, "legal")
    assert {h.get("Authorization") for h in chat.headers_seen} == {"Bearer sk-test-secret"}
    assert "sk-test-secret" not in json.dumps(report)


def test_worker_processes_give_the_same_counts(chat: FakeChat) -> None:
    one = run(chat, "nonsense")
    two = run(chat, "nonsense", jobs=2)
    name = f"llm:{chat.url}"
    assert two["agents"][name]["text"] == one["agents"][name]["text"]
    assert two["agents"][name]["mean_points"] == one["agents"][name]["mean_points"]
    assert one["agents"][name]["text"]["replies"] > 0


def test_the_leaderboard_reports_each_text_agents_rate(chat: FakeChat) -> None:
    chat.mode = "nonsense"
    name = f"llm:{chat.url}"
    report = leaderboard(
        [name, "greedy", "random"], deals=2, players=2, seed=1, game="knock",
        options={"max_hands": 1}, llm=LLMOptions(model="fake"),
    )  # fmt: skip
    assert report["agents"][name]["text"]["illegal_reply_rate"] == 1.0
    assert report["agents"][name]["text"]["replies"] == len(chat.requests) > 0
    assert "text" not in report["agents"]["greedy"]


@pytest.mark.parametrize(
    "name", ["llm:ftp://host/v1", "llm:127.0.0.1:8000", "llm:http://host:port/v1", "llm:"]
)
def test_a_malformed_url_is_refused_in_one_line(name: str) -> None:
    with pytest.raises(ValueError, match="llm:") as info:
        base_url(name)
    assert "\n" not in str(info.value)


def test_a_url_with_the_word_oracle_is_no_oracle(chat: FakeChat) -> None:
    from agents.registry import is_oracle

    assert is_oracle("search-oracle") and not is_oracle("llm:http://oracle.example/v1")
    chat.mode = "legal"
    url = f"http://localhost:{chat.server_address[1]}/oracle/v1"
    report = evaluate(
        [f"llm:{url}", "greedy"], players=2, games=1, rounds=[1], llm=LLMOptions(model="fake")
    )
    assert report["agents"][f"llm:{url}"]["text"]["illegal_reply_rate"] == 0.0
    assert chat.requests[0]["path"] == "/oracle/v1/chat/completions"


def test_a_text_agent_without_a_model_is_refused_before_any_game() -> None:
    with pytest.raises(ValueError, match="--llm-model"):
        evaluate(["llm:http://127.0.0.1:9/v1", "greedy"], players=2, games=1, rounds=[1])


@pytest.mark.parametrize(
    "options",
    [{"model": ""}, {"model": "m", "fallback": "llm:http://x/v1"}, {"model": "m", "timeout": 0},
     {"model": "m", "retries": 11}, {"model": "m", "fallback": "search-oracle"}],
)  # fmt: skip
def test_bad_settings_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="--llm-"):
        LLMOptions(**options)


# ----------------------------------------------------------------------------- command line


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agents.evaluate", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )  # fmt: skip


@pytest.mark.parametrize(("mode", "rate"), [("nonsense", 1.0), ("legal", 0.0)])
def test_the_command_line_reports_the_rate(
    chat: FakeChat, tmp_path: Path, mode: str, rate: float
) -> None:
    chat.mode = mode
    out = tmp_path / "report.json"
    done = cli(
        "--agents", f"llm:{chat.url},greedy", "--llm-model", "fake", "--players", "2",
        "--rounds", "1", "--games", "2", "--jobs", "2", "--seed", "1", "--no-progress",
        "--json", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    text = report["agents"][f"llm:{chat.url}"]["text"]
    assert text["illegal_reply_rate"] == rate and text["replies"] == len(chat.requests) > 0
    assert f"illegal-reply rate {rate:.3f}" in done.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--agents", "llm:gopher://x,greedy", "--llm-model", "m"], "http(s) URL"),
        (["--agents", "llm:http://127.0.0.1:9/v1,greedy"], "--llm-model"),
        (["--agents", "strong,greedy", "--llm-model", "m"], "none is named"),
        (["--agents", "llm:http://127.0.0.1:9/v1,greedy", "--llm-retries", "2"], "--llm-model"),
    ],
)
def test_the_command_line_refuses_bad_text_agent_settings(args: list[str], said: str) -> None:
    done = cli(*args, "--players", "2", "--rounds", "1", "--games", "1", "--no-progress")
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert said in last and last.startswith("continental evaluate: error:")


def test_the_key_never_travels_in_clear_and_a_url_holds_no_credentials() -> None:
    from agents.text.llm import ChatClient, LLMOptions, base_url

    options = LLMOptions(model="m")
    with pytest.warns(RuntimeWarning, match="not sending the API key"):
        remote = ChatClient("http://203.0.113.5:8000/v1", options, key="sk-XYZ")
    assert remote._key is None
    # The controls: over https, and to this machine, the key is sent.
    assert ChatClient("https://example.com/v1", options, key="sk-XYZ")._key == "sk-XYZ"
    assert ChatClient("http://127.0.0.1:8000/v1", options, key="sk-XYZ")._key == "sk-XYZ"
    with pytest.raises(ValueError, match="takes no user or password"):
        base_url("llm:https://user:s3cret@example.com/v1")
