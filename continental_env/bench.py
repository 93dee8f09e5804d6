"""Throughput benchmark: random legal play through the bare engine and the wrapped AEC env.

    continental bench [--game contract] [--games 20] [--players 2 4] [--preset continental]
    continental bench --game fifteen --players 2 4 12
    continental bench --game knock --players 2 4 6
    continental bench --compare-openspiel [--players 4] [--seconds 0.5] [--repeats 20]
    continental bench --batch [--num-games 1024] [--seconds 0.5] [--repeats 5]
    python -m continental_env.bench ...      (the same)

Each figure is the median of ``--repeats`` passes (the machine may be noisy). The AEC figure
includes an observation and an action mask on every step (``env.last()``), as a learner sees it.

``--compare-openspiel`` measures, in one run and in alternating passes, random legal play with
4 players through the wrapped AEC env (an observation and a mask every decision, as above)
against OpenSpiel's C++ ``gin_rummy`` through pyspiel with ``np.asarray(observation_tensor())``
every decision, and prints both rates and their ratio (OpenSpiel is the optional extra
``continental-rl[compare]``). Alternating passes expose both to the same machine load.

``--batch`` prints the speed table's environment rows: decisions per CPU-second (``time.process_time``
of this process, alternating passes) of the AEC env with the v0 and v1 observations, OpenSpiel's
``gin_rummy`` as above, and ``continental_env.batch.BatchGame`` at ``--num-games`` lanes (v0 and
v1), with their ratios.

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
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any

from continental_env.rules import PRESETS

FIFTEEN_OPTIONS = {"hands": 1}  # one-hand games (random play never goes out)
DEFAULT_PRESET = (
    "continental"  # the contract game's default rules; what a game without presets is given
)


@dataclass(frozen=True)
class BenchGame:
    """How to benchmark one game: its engine and its wrapped env from (players, preset)."""

    new_game: Callable[[int, int, str], Any]  # (players, seed, preset) -> engine
    new_env: Callable[[int, str], Any]  # (players, preset) -> wrapped AEC env
    check_players: Callable[[int, str], None]  # ValueError for a table it cannot seat
    uses_preset: bool = False
    # The game ``--compare-openspiel`` measures beside OpenSpiel's gin_rummy (with its default
    # rules): the AEC row of the speed table.
    openspiel_anchor: bool = False


def _contract_game(players: int, seed: int, preset: str) -> Any:
    from continental_env.contract.game import Game

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
        openspiel_anchor=True,
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


def _random_play(env: Any, rng: Any, seed: int, games: int | None) -> Iterator[None]:
    """Random legal play through a wrapped AEC env, an observation and a mask every decision
    (``env.last()``, as a learner sees it): yields once per decision, for ``games`` games
    (seeds ``seed``, ``seed + 1``, ...; None: without end)."""
    g = 0
    while games is None or g < games:
        env.reset(seed=seed + g)
        g += 1
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[rng.integers(len(legal))]))
            yield


def bench_aec(
    players: int, games: int, preset: str, seed: int, game: str = "contract"
) -> tuple[int, float]:
    """(actions, seconds) for `games` random games through the wrapped AEC env."""
    import numpy as np

    env = GAMES[game].new_env(players, preset)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    actions = sum(1 for _ in _random_play(env, rng, seed, games))
    return actions, time.perf_counter() - start


def _aec_player(
    players: int, seed: int, version: int = 0, clock: Callable[[], float] = time.perf_counter
) -> Generator[int, float, None]:
    """Random legal play through the wrapped AEC env (``_random_play``), game after game. Send
    a deadline (on ``clock``); it plays on until then, mid-game if need be, and yields the
    decisions made."""
    import numpy as np

    import continental_env

    env = continental_env.env(num_players=players, version=version)
    rng = np.random.default_rng(seed)
    deadline = yield 0
    decisions = 0
    for _ in _random_play(env, rng, seed, None):
        decisions += 1
        if clock() >= deadline:
            deadline = yield decisions
            decisions = 0


def _openspiel_player(
    seed: int, clock: Callable[[], float] = time.perf_counter
) -> Generator[int, float, None]:
    """Random legal play in OpenSpiel's C++ ``gin_rummy`` through pyspiel with
    ``np.asarray(state.observation_tensor())`` every decision (chance nodes are sampled and not
    counted); the same protocol as ``_aec_player``."""
    import numpy as np
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(seed)
    deadline = yield 0
    decisions = 0
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            np.asarray(state.observation_tensor())
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            decisions += 1
            if clock() >= deadline:
                deadline = yield decisions
                decisions = 0


def compare_openspiel(players: int, seconds: float, repeats: int, seed: int) -> int:
    """Alternating passes of our AEC env and OpenSpiel's gin_rummy; prints rates and ratio.

    Both players keep their games across passes (a pass may end mid-game), so every pass
    measures steady play, and each pair of passes sees nearly the same machine load.
    """
    try:
        import pyspiel
    except ImportError:
        print(
            "OpenSpiel is not installed (pip install 'continental-rl[compare]'): no comparison made"
        )
        return 0
    del pyspiel
    print(
        f"python {platform.python_version()} on {platform.machine()}; {repeats} alternating "
        f"passes of {seconds:g} s each; random legal play, an observation + mask every decision"
    )
    ours = _aec_player(players, seed)
    theirs = _openspiel_player(seed)
    next(ours)
    next(theirs)
    ratios: list[float] = []
    rates: tuple[list[float], list[float]] = ([], [])
    for r in range(repeats):
        for player, out in ((ours, rates[0]), (theirs, rates[1])):
            start = time.perf_counter()
            n = player.send(start + seconds)
            out.append(n / (time.perf_counter() - start))
        ratios.append(rates[0][-1] / rates[1][-1])
        if r < 3 or r == repeats - 1:
            print(
                f"pass {r + 1}: continental {players}p {rates[0][-1]:>8,.0f}/s   "
                f"openspiel gin_rummy {rates[1][-1]:>8,.0f}/s   ratio {ratios[-1]:.2f}x"
            )
        elif r == 3:
            print("...")
    a = statistics.median(rates[0])
    b = statistics.median(rates[1])
    print(
        f"medians: continental {players}p {a:,.0f} decisions/s, openspiel gin_rummy "
        f"{b:,.0f} decisions/s; ratio (median of the passes' ratios) "
        f"{statistics.median(ratios):.2f}x"
    )
    return 0


def _batch_player(
    num_games: int, seed: int, observation: str, clock: Callable[[], float]
) -> Generator[int, float, None]:
    """Random legal play of ``BatchGame`` (4 players; its default backend): one uniformly random
    legal action per lane each step (``random_legal``), the observation and mask written every
    step; the same protocol as ``_aec_player``, counting every lane's decision."""
    import numpy as np

    from continental_env.batch import BatchGame

    batch = BatchGame(num_games, 4, seed=seed, observation=observation)
    rng = np.random.default_rng(seed)
    batch.reset()
    deadline = yield 0
    decisions = 0
    while True:
        batch.step(batch.random_legal(rng))
        decisions += num_games
        if clock() >= deadline:
            deadline = yield decisions
            decisions = 0


def compare_batch(num_games: int, seconds: float, repeats: int, seed: int) -> int:
    """The speed table's environment rows, in CPU time of this process and alternating passes:
    decisions per CPU-second of the AEC env (v0, v1), OpenSpiel's ``gin_rummy`` (when installed)
    and ``BatchGame`` (v0, v1) at ``num_games`` lanes, 4 players, random legal play with an
    observation and a mask every decision; then the ratios the issue tracker asks for."""
    clock = time.process_time
    players: dict[str, Generator[int, float, None]] = {
        "aec v0": _aec_player(4, seed, 0, clock),
        "aec v1": _aec_player(4, seed, 1, clock),
    }
    try:
        import pyspiel  # noqa: F401

        players["openspiel gin_rummy"] = _openspiel_player(seed, clock)
    except ImportError:
        print(
            "OpenSpiel is not installed (pip install 'continental-rl[openspiel]'): no gin_rummy row"
        )
    from continental_env.batch import BatchGame

    for observation in ("v0", "v1"):
        backend = BatchGame(1, 4, observation=observation).backend
        players[f"batch {observation} N={num_games} ({backend})"] = _batch_player(
            num_games, seed, observation, clock
        )
    print(
        f"python {platform.python_version()} on {platform.machine()}; {repeats} alternating "
        f"passes of {seconds:g} CPU s each; 4 players, random legal play, an observation and "
        "a mask every decision"
    )
    rates: dict[str, list[float]] = {name: [] for name in players}
    for player in players.values():
        next(player)
    for _ in range(repeats):
        for name, player in players.items():
            start = clock()
            n = player.send(start + seconds)
            rates[name].append(n / (clock() - start))
    median = {name: statistics.median(r) for name, r in rates.items()}
    print(f"{'path':<32} {'decisions per CPU-s':>20}")
    for name, rate in median.items():
        print(f"{name:<32} {rate:>20,.0f}")
    names = list(median)
    batch_v0, batch_v1 = names[-2], names[-1]
    ratios = [(batch_v0, "aec v0"), (batch_v1, "aec v1")]
    if "openspiel gin_rummy" in median:
        ratios += [(batch_v0, "openspiel gin_rummy"), ("aec v1", "openspiel gin_rummy")]
    for a, b in ratios:
        print(f"{a} / {b}: {median[a] / median[b]:,.2f}x")
    return 0


def _parser() -> argparse.ArgumentParser:
    """The command line of ``continental bench``."""
    parser = argparse.ArgumentParser(prog="continental bench", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="contract", help=f"one of {', '.join(GAMES)}")
    parser.add_argument("--games", type=int, default=20, help="games per measurement")
    parser.add_argument(
        "--players", type=int, nargs="+", default=None, help="default 2 4 (4 with a comparison)"
    )
    parser.add_argument("--preset", default="continental", help="the contract game's rules")
    parser.add_argument(
        "--repeats", type=int, default=None, help="passes, the median shown (3; 20 comparing)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--compare-openspiel",
        action="store_true",
        help="our AEC env vs OpenSpiel's gin_rummy in alternating passes (4 players by default)",
    )
    parser.add_argument(
        "--seconds", type=float, default=0.5, help="seconds per pass (--compare-openspiel, --batch)"
    )
    parser.add_argument(
        "--batch",
        action="store_true",
        help="BatchGame against the AEC env and OpenSpiel, in CPU time (the speed table's rows)",
    )
    parser.add_argument("--num-games", type=int, default=1024, help="BatchGame lanes with --batch")
    return parser


def _run_comparison(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Check the ``--compare-openspiel`` options, then run the comparison."""
    args.repeats = 20 if args.repeats is None else args.repeats
    anchor = GAMES.get(args.game)
    if anchor is None or not anchor.openspiel_anchor or args.preset != DEFAULT_PRESET:
        parser.error("--compare-openspiel measures the contract game with its default rules")
    if args.repeats < 1 or not args.seconds > 0:
        parser.error("--repeats must be at least 1 and --seconds positive")
    players = args.players[0] if args.players else 4
    try:
        PRESETS[DEFAULT_PRESET].check_players(players)
    except ValueError as exc:
        parser.error(f"--players {players}: {exc}")
    return compare_openspiel(players, args.seconds, args.repeats, args.seed)


def _check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> BenchGame:
    """Fill in defaults and check every option; the chosen game's spec."""
    if args.players is None:
        args.players = [2, 4]
    if args.repeats is None:
        args.repeats = 3
    if args.game not in GAMES:
        parser.error(f"--game {args.game!r}: choose one of {', '.join(GAMES)}")
    spec = GAMES[args.game]
    if args.games < 1 or args.repeats < 1:
        parser.error("--games and --repeats must be at least 1")
    if args.preset not in PRESETS:
        parser.error(f"--preset {args.preset!r}: choose one of {', '.join(PRESETS)}")
    if not spec.uses_preset and args.preset != DEFAULT_PRESET:
        parser.error(f"--preset belongs to the contract game, not {args.game}")
    for players in args.players:
        try:
            spec.check_players(players, args.preset)
        except ValueError as exc:
            parser.error(f"--players {players}: {exc}")
    return spec


def _bench_row(
    args: argparse.Namespace, players: int, mode: str, fn: Callable[..., tuple[int, float]]
) -> None:
    """Measure one mode at one table size and print its row."""
    rates = []
    games_rates = []
    per_game = 0.0
    for r in range(args.repeats):
        actions, secs = fn(players, args.games, args.preset, args.seed + 1000 * r, args.game)
        rates.append(actions / secs)
        games_rates.append(args.games / secs)
        per_game = actions / args.games
    print(
        f"{players:>7} {mode:>6} {statistics.median(rates):>10,.0f} "
        f"{statistics.median(games_rates):>8.2f} {per_game:>12,.0f}"
    )


def main(argv: list[str] | None = None) -> int:
    """``continental bench``: every option is checked before the first game."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.compare_openspiel:
        return _run_comparison(parser, args)
    if args.batch:
        if args.num_games < 1 or not args.seconds > 0:
            parser.error("--num-games must be at least 1 and --seconds positive")
        return compare_batch(args.num_games, args.seconds, args.repeats or 5, args.seed)
    spec = _check_args(parser, args)
    what = f"preset {args.preset}" if spec.uses_preset else f"game {args.game}"
    print(f"python {platform.python_version()} on {platform.machine()}, {what}")
    print(f"{'players':>7} {'mode':>6} {'actions/s':>10} {'games/s':>8} {'actions/game':>12}")
    for players in args.players:
        for mode, fn in (("engine", bench_engine), ("aec", bench_aec)):
            _bench_row(args, players, mode, fn)
    return 0


if __name__ == "__main__":
    sys.exit(main())
