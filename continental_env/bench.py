"""Throughput benchmark: random legal play through the bare engine and the wrapped AEC env.

    continental bench [--game contract] [--games 20] [--players 2 4] [--preset continental]
    continental bench --game fifteen --players 2 4 12
    continental bench --game knock --players 2 4 6
    python -m continental_env.bench ...      (the same)

Each figure is the median of ``--repeats`` passes (the machine may be noisy). The AEC figure
includes an observation and an action mask on every step (``env.last()``), as a learner sees it.

Games (``--game``): ``contract`` (``--preset`` chooses the rules), ``fifteen`` and ``knock``. Random play
never goes out in the fifteen-card game, so every hand runs to its 200-turn limit; its games are
one hand long here (``hands=1``: 400 actions each). ``knock`` plays whole games with the default
options (random play rarely knocks, so its hands run to the turn limit and its players go over
100 within a few hands). Another game is one more ``BenchGame`` entry in ``GAMES``.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from continental_env.rules import PRESETS

FIFTEEN_OPTIONS = {"hands": 1}  # one-hand games (random play never goes out)


@dataclass(frozen=True)
class BenchGame:
    """How to benchmark one game: its engine and its wrapped env from (players, preset)."""

    new_game: Callable[[int, int, str], Any]  # (players, seed, preset) -> engine
    new_env: Callable[[int, str], Any]  # (players, preset) -> wrapped AEC env
    check_players: Callable[[int, str], None]  # ValueError for a table it cannot seat
    uses_preset: bool = False


def _contract_game(players: int, seed: int, preset: str) -> Any:
    from continental_env.game import Game

    return Game.new(preset, players, seed=seed)


def _contract_env(players: int, preset: str) -> Any:
    import continental_env

    return continental_env.env(num_players=players, preset=preset)


def _fifteen_game(players: int, seed: int, preset: str) -> Any:
    from continental_env import fifteen

    return fifteen.Game.new(num_players=players, seed=seed, **FIFTEEN_OPTIONS)


def _fifteen_env(players: int, preset: str) -> Any:
    from continental_env import fifteen

    return fifteen.env(num_players=players, **FIFTEEN_OPTIONS)


def _fifteen_check(players: int, preset: str) -> None:
    from continental_env.fifteen.game import Game

    Game(players)


def _knock_game(players: int, seed: int, preset: str) -> Any:
    from continental_env import knock

    return knock.Game.new(num_players=players, seed=seed)


def _knock_env(players: int, preset: str) -> Any:
    from continental_env import knock

    return knock.env(num_players=players)


def _knock_check(players: int, preset: str) -> None:
    from continental_env.knock.game import Game

    Game(players)


GAMES: dict[str, BenchGame] = {
    "contract": BenchGame(
        _contract_game,
        _contract_env,
        lambda players, preset: PRESETS[preset].check_players(players),
        uses_preset=True,
    ),
    "fifteen": BenchGame(_fifteen_game, _fifteen_env, _fifteen_check),
    "knock": BenchGame(_knock_game, _knock_env, _knock_check),
}


def bench_engine(
    players: int, games: int, preset: str, seed: int, game: str = "contract"
) -> tuple[int, float]:
    """(actions, seconds) for `games` random games through the bare engine."""
    rng = random.Random(seed)
    new_game = GAMES[game].new_game
    actions = 0
    start = time.perf_counter()
    for g in range(games):
        state = new_game(players, seed + g, preset)
        while not state.is_over:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            actions += 1
    return actions, time.perf_counter() - start


def bench_aec(
    players: int, games: int, preset: str, seed: int, game: str = "contract"
) -> tuple[int, float]:
    """(actions, seconds) for `games` random games through the wrapped AEC env."""
    import numpy as np

    env = GAMES[game].new_env(players, preset)
    rng = np.random.default_rng(seed)
    actions = 0
    start = time.perf_counter()
    for g in range(games):
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            actions += 1
            del agent
    return actions, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    """``continental bench``: every option is checked before the first game."""
    parser = argparse.ArgumentParser(prog="continental bench", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="contract", help=f"one of {', '.join(GAMES)}")
    parser.add_argument("--games", type=int, default=20, help="games per measurement")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--preset", default="continental", help="the contract game's rules")
    parser.add_argument("--repeats", type=int, default=3, help="passes; the median is shown")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.game not in GAMES:
        parser.error(f"--game {args.game!r}: choose one of {', '.join(GAMES)}")
    spec = GAMES[args.game]
    if args.games < 1 or args.repeats < 1:
        parser.error("--games and --repeats must be at least 1")
    if args.preset not in PRESETS:
        parser.error(f"--preset {args.preset!r}: choose one of {', '.join(PRESETS)}")
    if not spec.uses_preset and args.preset != "continental":
        parser.error(f"--preset belongs to the contract game, not {args.game}")
    for players in args.players:
        try:
            spec.check_players(players, args.preset)
        except ValueError as exc:
            parser.error(f"--players {players}: {exc}")
    what = f"preset {args.preset}" if spec.uses_preset else f"game {args.game}"
    print(f"python {platform.python_version()} on {platform.machine()}, {what}")
    print(f"{'players':>7} {'mode':>6} {'actions/s':>10} {'games/s':>8} {'actions/game':>12}")
    for players in args.players:
        for mode, fn in (("engine", bench_engine), ("aec", bench_aec)):
            rates = []
            games_rates = []
            per_game = 0.0
            for r in range(args.repeats):
                actions, secs = fn(
                    players, args.games, args.preset, args.seed + 1000 * r, args.game
                )
                rates.append(actions / secs)
                games_rates.append(args.games / secs)
                per_game = actions / args.games
            print(
                f"{players:>7} {mode:>6} {statistics.median(rates):>10,.0f} "
                f"{statistics.median(games_rates):>8.2f} {per_game:>12,.0f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
