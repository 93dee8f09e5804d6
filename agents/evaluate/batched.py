"""Duplicate deals played on a game's compiled batch, many games per call.

When every seat of an evaluation is a bot the game's batch decides itself (``GameSpec.new_batch``
and ``batch_bots``; the contract game's ``BatchGame`` decides ``greedy``, ``strong@v1`` and
``strong@v2`` in C, and ``strong`` while it names ``strong@v1``), the harness plays a chunk of
deals at once: one batch whose every lane is one seating of one deal, set from the same
``GameSpec.new_game`` the one-by-one path deals (``deals.play_seating``), and a round of every
lane played per call (``BatchGame.play_out``; a finished game stays as it ended
until it is read). The compiled bots make the Python bots' decision in every position and the
core's rules and generator are the engine's, so each game's result (scores, rounds, closers,
decisions, deal fingerprints) is the one ``deals.play_game`` gives, and the report is identical
but for its timing (``tests/test_evaluate_batched.py``). The CPU time of a chunk is shared among
its games by their decisions.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from agents.evaluate.deals import _GIVEN, derive_seed
from agents.games import game_spec
from agents.registry import versioned_name
from agents.spec import GameSpec

# Whether line-ups of compiled bots play on a compiled batch (the harness asks ``can_batch``):
# the same results, many games per call. Off: every game through ``deals.play_game``.
BATCHED = True
CHUNK_GAMES = 256  # games played together: enough lanes to amortise each call, few deals late


def compiled_bot(name: str, spec: GameSpec) -> str | None:
    """The bot of ``spec``'s batch that plays registry name ``name``, or None."""
    if name in _GIVEN or spec.new_batch is None:
        return None
    bot = versioned_name(name)
    return bot if bot in spec.batch_bots else None


def can_batch(tasks: Sequence[tuple]) -> bool:
    """Whether every game of these deal tasks ((deal, seed, seatings, game, options)) can be
    played on a compiled batch: every seat a bot the game's batch decides, the batch built."""
    if not tasks:
        return False
    _deal, _seed, seatings, game, options = tasks[0]
    return can_batch_lineups(seatings, game_spec(game), len(seatings[0]), options)


def can_batch_lineups(
    lineups: Sequence[Sequence[str]], spec: GameSpec, players: int, options: dict | None
) -> bool:
    """Whether games of these line-ups can be played on the game's compiled batch: every
    name a bot it decides, the batch built for this table (the leaderboard asks)."""
    if not BATCHED or any(compiled_bot(n, spec) is None for lineup in lineups for n in lineup):
        return False
    assert spec.new_batch is not None  # compiled_bot said so
    probe = spec.new_game(players, 0, dict(options or {}))
    return spec.new_batch(1, players, probe) is not None


def play_games_batched(
    spec: GameSpec,
    players: int,
    options: dict | None,
    games: Sequence[tuple[int, Sequence[str]]],
    bar: Any,
) -> Iterator[dict[str, Any]]:
    """Each game ``(game seed, seat names)`` of compiled bots as ``deals.play_game`` plays it
    (scores, rounds, closers, decisions, fingerprints), in order, ``CHUNK_GAMES`` per batch."""
    for lo in range(0, len(games), CHUNK_GAMES):
        chunk = games[lo : lo + CHUNK_GAMES]
        states = [spec.new_game(players, seed, dict(options or {})) for seed, _names in chunk]
        yield from _play_states(spec, players, states, [names for _s, names in chunk], bar)


def _play_states(
    spec: GameSpec, players: int, states: list, seatings: list, bar: Any
) -> list[dict[str, Any]]:
    """Games in play (``new_game``'s, one per lane; the same object may serve several lanes:
    ``set_game`` copies) played to their end by the compiled bots named per seat."""
    assert spec.new_batch is not None
    batch = spec.new_batch(len(states), players, states[0])
    for lane, g in enumerate(states):
        batch.set_game(lane, g)
    kinds = batch.bot_kinds([[compiled_bot(n, spec) for n in names] for names in seatings])
    return _play_games(batch, kinds, states, spec, bar)


def run_deals_batched(tasks: list, jobs: int, progress: bool) -> Iterator[dict[str, Any]]:
    """``deals.run_deals`` for tasks that ``can_batch``: each deal's result in deal order, in
    this process (``jobs`` is not used: one process steps every game)."""
    from tqdm import tqdm

    seatings = tasks[0][2]
    per_chunk = max(1, CHUNK_GAMES // len(seatings))
    bar = tqdm(total=len(tasks) * len(seatings), desc="games", unit="game",
               disable=not progress, file=sys.stderr)  # fmt: skip
    try:
        for lo in range(0, len(tasks), per_chunk):
            chunk = tasks[lo : lo + per_chunk]
            yield from _play_chunk(chunk, bar)
    finally:
        bar.close()


def _play_chunk(chunk: list, bar: Any) -> Iterable[dict[str, Any]]:
    """Every seating of every deal of ``chunk`` on one batch: a lane per game."""
    cpu = time.process_time()
    _deal, seed, seatings, game, options = chunk[0]
    spec = game_spec(game)
    players = len(seatings[0])
    games = []
    for task in chunk:
        g = spec.new_game(players, derive_seed(seed, "deal", task[0]), dict(options or {}))
        games.extend([g] * len(seatings))  # set_game copies: one game serves every seating
    played = _play_states(spec, players, games, [n for _t in chunk for n in seatings], bar)
    # The chunk's CPU shared among its games by their decisions.
    cpu = time.process_time() - cpu
    total = sum(g["decisions"] for g in played) or 1
    k = len(seatings)
    for t, task in enumerate(chunk):
        results = played[t * k : (t + 1) * k]
        yield {"deal": task[0], "games": results,
               "cpu_s": cpu * sum(g["decisions"] for g in results) / total}  # fmt: skip


def _play_games(
    batch: Any, kinds: np.ndarray, games: list[Any], spec: Any, bar: Any
) -> list[dict[str, Any]]:
    """Plays every lane of ``batch`` to its game's end, a round of every lane per call (the
    bots and the rules in C); each game's result as ``deals.play_game`` gives it, read from the
    lane's raw values after each round (the next deal's fingerprint, or how the game ended)."""
    from agents.spec import digest

    n = batch.num_games
    fingerprints = [[spec.deal_fingerprint(g)] for g in games]
    active = np.ones(n, dtype=bool)
    out: list[dict[str, Any] | None] = [None] * n
    while active.any():
        batch.play_out(kinds, active=active, restart=False)
        for lane in np.flatnonzero(active):
            raw = batch.export(int(lane))
            if raw["phase"] != "game_over":
                fingerprints[lane].append(digest(*raw["hands"], raw["discard"], raw["stock"]))
                continue
            history = raw["round_history"]
            out[lane] = {
                "closers": [r["closer"] for r in history],
                "scores": list(raw["scores"]),
                "segment_scores": [list(r["points"]) for r in history],
                "segments": [str(r["round"]) for r in history],
                "decisions": raw["moves"],
                "fingerprints": fingerprints[lane],
            }
            active[lane] = False
            bar.update()
    return [r for r in out if r is not None]


__all__ = [
    "can_batch", "can_batch_lineups", "compiled_bot", "play_games_batched", "run_deals_batched",
]  # fmt: skip
