"""Seating, seeds and playing the games of duplicate deals, in this process or in workers.

``lineup`` seats the candidate and its opponents, ``rotations`` turns the line-up so the candidate
sits in every seat, ``derive_seed`` gives every deal and every bot a stable seed, ``play_game``
plays one game of any registered game (``agents.games``) and ``run_deals`` yields each deal's games
in deal order whatever the number of worker processes.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sys
import time
from collections.abc import Iterable, Sequence
from contextlib import ExitStack
from itertools import groupby
from typing import Any

from agents import is_oracle
from agents.games import DEFAULT_GAME, GameSpec, game_spec

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


def refuse_oracles(names: Sequence[str], allow: bool) -> None:
    """ValueError for an agent that reads the true hidden state, unless ``allow``."""
    for name in names:
        if is_oracle(name) and not allow:
            raise ValueError(
                f"agent {name!r} reads the true hidden state (an oracle diagnostic), not a "
                f"player; pass --allow-oracle (allow_oracle=True) to run it as a diagnostic"
            )


# ----------------------------------------------------------------------------- playing


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
    bots = [spec.make_agent(name, seed) for name, seed in zip(names, agent_seeds, strict=True)]
    for bot in bots:  # diagnostics that read the true hidden state (refused unless allowed)
        if getattr(bot, "reads_hidden_state", False):
            bot.attach(state)
    fingerprints = [spec.deal_fingerprint(state)]
    deal = spec.deal_number(state)
    decisions = 0
    while not state.is_over:
        seat = state.actor
        state.apply(bots[seat].act(spec.view(state, seat)))
        decisions += 1
        if spec.deal_number(state) != deal and not state.is_over:
            deal = spec.deal_number(state)
            fingerprints.append(spec.deal_fingerprint(state))
    segments = spec.segments(state)
    return {
        "closers": spec.closers(state) if spec.closers else None,
        "scores": spec.final_scores(state),
        "segment_scores": [list(values) for _label, values in segments],
        "segments": [label for label, _values in segments],
        "decisions": decisions,
        "fingerprints": fingerprints,
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


def run_deals(tasks: list, jobs: int, progress: bool) -> Iterable[dict[str, Any]]:
    """Each deal's result, deal by deal, played seating by seating; the bar counts games."""
    from tqdm import tqdm

    seat_tasks = [(*task, k) for task in tasks for k in range(len(task[2]))]
    bar = tqdm(total=len(seat_tasks), desc="games", unit="game", disable=not progress,
               file=sys.stderr)  # fmt: skip
    try:
        with ExitStack() as stack:
            played: Iterable[dict[str, Any]] = map(play_seating, seat_tasks)
            if jobs > 1:
                ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
                pool = stack.enter_context(ctx.Pool(jobs))
                played = pool.imap(play_seating, seat_tasks, chunksize=1)  # in task order
            for deal, group in groupby(played, key=lambda p: p["deal"]):
                games, cpu = [], 0.0
                for p in group:
                    games.append(p["game"])
                    cpu += p["cpu_s"]
                    bar.update()
                yield {"deal": deal, "games": games, "cpu_s": cpu}
    finally:
        bar.close()
