"""Seating, seeds and playing the games of duplicate deals, in this process or in workers.

``lineup`` seats the candidate and its opponents, ``rotations`` turns the line-up so the candidate
sits in every seat, ``derive_seed`` gives every deal and every bot a stable seed, ``play_game``
plays one game of any registered game (``agents.games``) and ``run_deals`` yields each deal's games
in deal order whatever the number of worker processes.

**Agents** are names (``build_agent``: the registry, installed entry points, ``module:Name``;
``agents.registry.make_harness_agent``) or objects handed to the Python API (a bot, or a class or
factory building one from a seed), known by a label (``label_agents``: their ``name`` attribute
or class name) for the evaluation under way (``given_agents``). Every bot, built in or not, acts
on the same redacted view of its seat (``GameSpec.view``); only the registry's oracle
diagnostics, when allowed, are shown the live game.
"""

from __future__ import annotations

import dataclasses
import hashlib
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from itertools import groupby
from typing import Any

from agents import is_oracle
from agents.games import DEFAULT_GAME, GameSpec, game_spec
from agents.registry import (
    build_user_agent,
    is_builtin,
    is_user_name,
    make_harness_agent,
    refuse_user_oracle,
)

# ----------------------------------------------------------------------------- seating and seeds


def lineup(agents: Sequence[str], players: int) -> list[str]:
    """Seat 0 is the candidate; the other seats cycle through the remaining agents."""
    if not agents:
        raise ValueError("need at least one agent")
    others = list(agents[1:]) or [agents[0]]
    return [agents[0]] + [others[i % len(others)] for i in range(players - 1)]


def rotations(base: Sequence[str]) -> list[list[str]]:
    """The line-up rotated so the candidate (seat 0 of ``base``) sits in seat k, k = 0..P-1."""
    p = len(base)
    return [[base[(s - k) % p] for s in range(p)] for k in range(p)]


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the parts (stable across runs, platforms and processes)."""
    text = ":".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def refuse_oracles(names: Sequence[str], allow: bool, game: str = DEFAULT_GAME) -> None:
    """ValueError for an agent that reads the true hidden state, unless ``allow``; always for a
    bot of your own named like one (only the registry's diagnostics read the hidden state)."""
    for name in names:
        if not is_oracle(name):
            continue
        if name in _GIVEN or is_user_name(name, game):
            refuse_user_oracle(name)
        if not allow:
            raise ValueError(
                f"agent {name!r} reads the true hidden state (an oracle diagnostic), not a "
                f"player; pass --allow-oracle (allow_oracle=True) to run it as a diagnostic"
            )


# ----------------------------------------------------------------------------- agents

# The agents handed to the Python API as objects, by label, for the evaluation under way (set by
# ``given_agents``); worker processes are forked, so they inherit it.
_GIVEN: dict[str, Any] = {}


def agent_label(agent: Any) -> str:
    """How reports name an agent object: its ``name`` attribute (a non-empty text), else the name
    of its class (or of the class or function itself, for a factory)."""
    name = getattr(agent, "name", None)
    if isinstance(name, str) and name.strip():
        return name.strip()
    if isinstance(agent, type) or (callable(agent) and hasattr(agent, "__name__")):
        return agent.__name__
    return type(agent).__name__


def label_agents(
    agents: Sequence[Any], game: str = DEFAULT_GAME
) -> tuple[list[str], dict[str, Any]]:
    """The agents' labels (a name stays itself) and the objects among them by label; ValueError
    for a label that a registry name, another object or a name in the list already has."""
    names = {a for a in agents if isinstance(a, str)}
    labels: list[str] = []
    given: dict[str, Any] = {}
    for agent in agents:
        if isinstance(agent, str):
            labels.append(agent)
            continue
        label = agent_label(agent)
        refuse_user_oracle(label)
        if is_builtin(label, game) or label in names:
            raise ValueError(
                f"agent object {agent!r} is labelled {label!r}, which names another agent here; "
                "give it a name attribute of its own"
            )
        if given.get(label, agent) is not agent:
            raise ValueError(
                f"two different agent objects are labelled {label!r}; give each a name "
                "attribute of its own"
            )
        given[label] = agent
        labels.append(label)
    return labels, given


@contextmanager
def given_agents(given: dict[str, Any]) -> Iterator[None]:
    """Make the agent objects ``given`` (label -> object) known to ``build_agent`` for the
    duration; objects need forked workers, so ``jobs`` > 1 with objects is posix-only."""
    before = dict(_GIVEN)
    _GIVEN.update(given)
    try:
        yield
    finally:
        _GIVEN.clear()
        _GIVEN.update(before)


def refuse_objects_in_spawned_workers(given: dict[str, Any], jobs: int) -> None:
    """ValueError where agent objects cannot reach worker processes (no fork on this system)."""
    if given and jobs > 1 and os.name != "posix":
        raise ValueError(
            f"--jobs {jobs}: agent objects ({', '.join(given)}) reach worker processes only by "
            "fork, which this system lacks; use jobs=1 or name them as module:Name"
        )


def build_agent(name: str, seed: int | None, spec: GameSpec) -> Any:
    """The bot of agent ``name`` for one seat: an object handed to the API (``given_agents``),
    else a name (``agents.registry.make_harness_agent``)."""
    if name in _GIVEN:
        return build_user_agent(_GIVEN[name], seed, name, f"the agent object {name!r}")
    return make_harness_agent(name, seed, spec.name)


# ----------------------------------------------------------------------------- playing


def observed(spec: GameSpec, watch: Callable[[Any], Any]) -> tuple[GameSpec, list[Any]]:
    """``spec`` whose every new game is handed to ``watch`` as it is made, and the list of what
    ``watch`` returned, one per game in order (a chance recorder, a logger: ``[-1]`` is the
    game just played)."""
    watchers: list[Any] = []

    def new_game(players: int, game_seed: int | None, options: dict[str, Any]) -> Any:
        state = spec.new_game(players, game_seed, options)
        watchers.append(watch(state))
        return state

    return dataclasses.replace(spec, new_game=new_game), watchers


def play_game(
    names: Sequence[str],
    game_seed: int,
    agent_seeds: Sequence[int],
    game: str | GameSpec = DEFAULT_GAME,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One full game; returns final scores, per-round (or hand) scores, decisions and deal
    fingerprints.

    The engines deal every round (hand) from its own seed, drawn from ``game_seed`` when the game
    is created, so each deal's cards are the same in every rotation whatever happened earlier;
    the fingerprints let the report check it.
    """
    spec = game_spec(game) if isinstance(game, str) else game
    state = spec.new_game(len(names), game_seed, dict(options or {}))
    bots = [build_agent(name, seed, spec) for name, seed in zip(names, agent_seeds, strict=True)]
    for name, bot in zip(names, bots, strict=True):
        # The registry's diagnostics that read the true hidden state (refused unless allowed);
        # no other bot is ever shown the live game (``build_user_agent`` refuses one that asks).
        if getattr(bot, "reads_hidden_state", False) and is_builtin(name, spec.name):
            bot.attach(state)
    fingerprints = [spec.deal_fingerprint(state)]
    deal = spec.deal_number(state)
    decisions = 0
    while not state.is_over:
        seat = state.actor
        action = bots[seat].act(spec.view(state, seat))
        try:
            state.apply(action)
        except ValueError as exc:  # an illegal action: say whose
            raise ValueError(
                f"agent {names[seat]!r} in seat {seat} played {action!r}: {exc}"
            ) from None
        decisions += 1
        if spec.deal_number(state) != deal and not state.is_over:
            deal = spec.deal_number(state)
            fingerprints.append(spec.deal_fingerprint(state))
    segments = spec.segments(state)
    result = {
        "closers": spec.closers(state) if spec.closers else None,
        "scores": spec.final_scores(state),
        "segment_scores": [list(values) for _label, values in segments],
        "segments": [label for label, _values in segments],
        "decisions": decisions,
        "fingerprints": fingerprints,
    }
    text = text_stats(bots)
    if text:  # only games with a text agent carry it: other results stay as they were
        result["text"] = text
    return result


def text_stats(bots: Sequence[Any]) -> dict[str, dict[str, int]]:
    """The counts of each seat whose bot is a text agent (``text_stats()``: replies, fallbacks,
    failed requests; ``agents.text.llm.LLMAgent``), by seat (a text, as JSON keys are)."""
    return {
        str(seat): dict(bot.text_stats())
        for seat, bot in enumerate(bots)
        if callable(getattr(bot, "text_stats", None))
    }


def play_deal(
    task: tuple[int, int, list[list[str]], str, dict[str, Any]],
) -> dict[str, Any]:
    """Every rotation of one deal: (deal, seed, seatings, game, options)."""
    deal, seatings = task[0], task[2]
    played = [play_seating((*task, k)) for k in range(len(seatings))]
    return {"deal": deal, "games": [p["game"] for p in played],
            "cpu_s": sum(p["cpu_s"] for p in played)}  # fmt: skip


def play_seating(
    task: tuple[int, int, list[list[str]], str, dict[str, Any], int],
) -> dict[str, Any]:
    """One seating ``k`` of a deal (a worker's unit of work, so progress moves game by game)."""
    deal, seed, seatings, game, options, k = task
    cpu = time.process_time()
    game_seed = derive_seed(seed, "deal", deal)
    names = seatings[k]
    agent_seeds = [derive_seed(seed, "agent", deal, k, s) for s in range(len(names))]
    result = play_game(names, game_seed, agent_seeds, game, options)
    return {"deal": deal, "game": result, "cpu_s": time.process_time() - cpu}


def run_deals(
    tasks: list, jobs: int, progress: bool, play: Callable[[tuple], dict[str, Any]] | None = None
) -> Iterable[dict[str, Any]]:
    """Each deal's result, deal by deal, played seating by seating; the bar counts games.
    ``play`` is the unit of work, one seating (default ``play_seating``; a module-level function,
    so worker processes can receive it)."""
    from tqdm import tqdm

    play = play or play_seating
    seat_tasks = [(*task, k) for task in tasks for k in range(len(task[2]))]
    bar = tqdm(total=len(seat_tasks), desc="games", unit="game", disable=not progress,
               file=sys.stderr)  # fmt: skip
    try:
        with ExitStack() as stack:
            played: Iterable[dict[str, Any]] = map(play, seat_tasks)
            if jobs > 1:
                ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
                pool = stack.enter_context(ctx.Pool(jobs))
                played = pool.imap(play, seat_tasks, chunksize=1)  # in task order
            for deal, group in groupby(played, key=lambda p: p["deal"]):
                games, cpu = [], 0.0
                for p in group:
                    games.append(p["game"])
                    cpu += p["cpu_s"]
                    bar.update()
                yield {"deal": deal, "games": games, "cpu_s": cpu}
    finally:
        bar.close()
