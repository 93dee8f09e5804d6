"""CPU time of the batch core's C bots against the Python bots, in one process.

    python scripts/bench_batch_bots.py                       # 4 players, continental
    python scripts/bench_batch_bots.py --players 6 --preset continental_es

Two figures, both in CPU seconds (``time.process_time``), both checked for equal results:

* **decisions per CPU-s**: in the same positions (a compiled ``BatchGame`` playing mixed tables),
  ``BatchGame.bot_actions`` over all lanes against each Python bot's ``act`` on the seat's
  ``PlayerView`` of the lane's ``Game`` (the ``Game`` itself is built outside the clock);
* **rounds per CPU-s**: ``BatchGame.play_out`` with ``strong@v1`` at every seat, from the same
  round starts, against the search's Python rollout loop (``agents.contract.search``: the bot on
  ``PlayerView.in_world`` at each decision, ``Game.apply``), round after round.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from agents.bots.base import SeededAgent
from agents.contract.batch_bots import python_bots
from agents.contract.view import PlayerView
from continental_env.batch import BatchGame
from continental_env.contract.batch import BOT_NAMES
from continental_env.contract.game import Game


def decisions(preset: str, players: int, lanes: int, steps: int, seed: int) -> dict[str, tuple]:
    """Per bot: (decisions, C CPU s, Python CPU s) over the same positions."""
    b = BatchGame(lanes, players, preset, seed=seed, backend="compiled")
    b.reset()
    rng = np.random.default_rng(seed)
    seating = rng.integers(0, len(BOT_NAMES), size=(lanes, players))
    bots = python_bots()
    out = {name: [0, 0.0, 0.0] for name in BOT_NAMES}
    for _ in range(steps):
        games = [b.game(i) for i in range(lanes)]
        chosen = {}
        for name in BOT_NAMES:
            start = time.process_time()
            chosen[name] = b.bot_actions(name)
            middle = time.process_time()
            python = [bots[name].act(PlayerView(g, g.actor)) for g in games]
            end = time.process_time()
            if python != chosen[name].tolist():
                raise SystemExit(f"{name}: the C and Python bots disagree")
            row = out[name]
            row[0] += lanes
            row[1] += middle - start
            row[2] += end - middle
        picks = np.stack([chosen[name] for name in BOT_NAMES], axis=1)
        actor = np.array([g.actor for g in games])
        b.step(picks[np.arange(lanes), seating[np.arange(lanes), actor]])
    return {name: tuple(row) for name, row in out.items()}


def python_round(game: Game, bot: SeededAgent) -> list[int]:
    """One round of ``game`` played out by ``bot`` at every seat (the search's rollout loop)."""
    start = game.round_index
    while game.phase != "game_over" and game.round_index == start:
        legal = game.legal_actions()
        actor = game.actor
        action = legal[0] if len(legal) == 1 else bot.act(PlayerView.in_world(game, actor))
        game.apply(action)
    return list(game.round_history[-1]["points"])


def rollouts(preset: str, players: int, lanes: int, rounds: int, seed: int) -> tuple:
    """(rounds, C CPU s, Python CPU s) of strong@v1 play-outs from the same round starts."""
    b = BatchGame(lanes, players, preset, seed=seed, backend="compiled")
    b.reset()
    games = [b.game(i) for i in range(lanes)]  # the round starts, before any play-out
    c_points = []
    start = time.process_time()
    for _ in range(rounds):
        c_points.append(b.play_out("strong@v1"))
    c_time = time.process_time() - start
    bot = python_bots()["strong@v1"]
    start = time.process_time()
    py_points = [[python_round(g, bot) for g in games] for _ in range(rounds)]
    py_time = time.process_time() - start
    if not all(np.array_equal(c, p) for c, p in zip(c_points, py_points, strict=True)):
        raise SystemExit("the C and Python play-outs scored differently")
    return lanes * rounds, c_time, py_time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="continental")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--lanes", type=int, default=64)
    parser.add_argument("--steps", type=int, default=60, help="steps of decision positions")
    parser.add_argument("--rounds", type=int, default=2, help="rounds per lane played out")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"{args.preset}, {args.players} players, {args.lanes} lanes (CPU seconds)")
    rows = decisions(args.preset, args.players, args.lanes, args.steps, args.seed)
    for name, (n, c_time, py_time) in rows.items():
        print(
            f"  {name:>10} decisions: {n:,}; C {n / c_time:,.0f}/CPU-s, Python "
            f"{n / py_time:,.0f}/CPU-s: {py_time / c_time:,.0f}x"
        )
    n, c_time, py_time = rollouts(args.preset, args.players, args.lanes, args.rounds, args.seed)
    print(
        f"  strong@v1 play-outs: {n:,} rounds; C {n / c_time:,.1f}/CPU-s, Python "
        f"{n / py_time:,.1f}/CPU-s: {py_time / c_time:,.0f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
