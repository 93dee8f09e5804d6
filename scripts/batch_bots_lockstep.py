"""The batch core's C bots against the Python bots, decision by decision.

    python scripts/batch_bots_lockstep.py --decisions 100000 --seed 7     # the long run
    python scripts/batch_bots_lockstep.py --decisions 3000 --lanes 4      # a quick one
    python scripts/batch_bots_lockstep.py --decisions 3000 --positive-control

For every preset at every table size it allows (``continental_env.rules.PRESETS``, 2-8 players),
then for a few rule variants the presets do not reach (``VARIANTS``: other run lengths, no
jokers, claims after laying down), a compiled ``BatchGame`` plays its rounds in an order drawn
from the seed (so that every contract comes first somewhere): most lanes seat one bot per seat, drawn among
``greedy``, ``strong@v1`` and ``strong@v2`` (mixed tables), the others play random legal
actions (positions no bot would reach). At a sampled share of the positions every one of the
three bots decides twice, in C (``BatchGame.bot_actions``) and in Python (the bot's ``act`` on
the seat's ``PlayerView`` of ``b.game(i)``), and the two must agree; one decision is one bot in
one position. At each table's end the lanes are played out to their round's end both ways
(``BatchGame.play_out`` against ``agents.contract.batch_bots.python_play_out``): the same points
and the same positions after. The counts per bot, preset and table size and every difference
are printed; the exit status is 0 only without a difference.

``--positive-control`` sets the core's ``bot_perturb`` (greedy's last discard tie-break flipped
in C only): the run must then find differences, and exits 0 only if it does.

``--pinned`` replays instead the recorded games of ``tests/test_versions.py`` (a checkout's
tests), search bots included: each game is played by the Python bots, must be the recorded one
(its digest, length and scores), and at every ``strong@v1`` seat's decision the position is put
on a lane and the C bot must give the recorded move.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np

from agents.contract.batch_bots import python_bots, python_play_out
from agents.contract.view import PlayerView
from continental_env.batch import BatchGame
from continental_env.contract.batch import BOT_NAMES
from continental_env.contract.game import Game
from continental_env.rules import PRESETS, RuleConfig, resolve_rules

PHASES = ("draw", "claim", "play")
# Rules the presets do not reach, for the bots' run windows, joker and claim logic.
VARIANTS = {
    "min_run_3": replace(PRESETS["continental"], name="min_run_3", min_run=3),
    "min_run_6_linear": replace(PRESETS["continental_us"], name="min_run_6_linear", min_run=6),
    "no_jokers": replace(
        PRESETS["continental_es"], name="no_jokers", jokers_per_deck=0,
        claims_after_laydown=True, max_claims_per_round=2,
    ),
}  # fmt: skip


def tables() -> Iterator[tuple[RuleConfig, int]]:
    """Every preset at every table size it allows, then each variant at 2, 4 and 6 players."""
    for rules in PRESETS.values():
        for players in range(rules.min_players, rules.max_players + 1):
            yield rules, players
    for rules in VARIANTS.values():
        for players in (2, 4, 6):
            yield rules, players


def lockstep(
    preset: str | RuleConfig,
    players: int,
    lanes: int,
    steps: int,
    share: float,
    seed: int,
    perturb: int = 0,
    play_out: bool = True,
) -> tuple[Counter, list[str]]:
    """Decisions compared per (bot, phase, round) and the differences found, on one table."""
    rng = np.random.default_rng(seed)
    rounds = tuple(int(r) for r in rng.permutation(7) + 1)
    b = BatchGame(lanes, players, preset, seed=seed, rounds=rounds, backend="compiled")
    _obs, _mask, actor = b.reset()
    b._core.bot_perturb = perturb  # the positive control's hook (0: the bots as defined)
    name = preset if isinstance(preset, str) else preset.name
    seating = rng.integers(0, len(BOT_NAMES), size=(lanes, players))
    random_lane = rng.random(lanes) < 0.25
    bots = python_bots()
    counts: Counter = Counter()
    diffs: list[str] = []
    for step in range(steps):
        chosen = {bot: b.bot_actions(bot) for bot in BOT_NAMES}
        for i in np.flatnonzero(rng.random(lanes) < share).tolist():
            game = b.game(i)
            seat = game.actor
            for bot in BOT_NAMES:
                action = bots[bot].act(PlayerView(game, seat))
                counts[bot, game.phase.value, game.round] += 1
                if action != chosen[bot][i]:
                    diffs.append(
                        f"{name} {players}p seed {seed} step {step} lane {i} seat {seat} "
                        f"{bot}: C {chosen[bot][i]} != Python {action}"
                    )
        by_seat = np.stack([chosen[bot] for bot in BOT_NAMES], axis=1)  # (lanes, bots)
        picks = by_seat[np.arange(lanes), seating[np.arange(lanes), actor]]
        actions = np.where(random_lane, b.random_legal(rng), picks)
        _obs, _mask, actor, _rewards, _done = b.step(actions)
    if play_out:
        diffs += compare_play_out(b, seating, seed)
    return counts, diffs


def compare_play_out(b: BatchGame, seating: np.ndarray, seed: int) -> list[str]:
    """The lanes played to their round's end by the C bots and by the Python bots: the points
    and the positions after must agree."""
    twin = BatchGame(b.num_games, b.num_players, b.setup.rules, seed=b.seed, backend="compiled")
    twin.reset()
    for i in range(b.num_games):
        twin.set_game(i, b.game(i), b.game_index(i))
    names = [[BOT_NAMES[k] for k in row] for row in seating.tolist()]
    points_c = b.play_out(names)
    points_py = python_play_out(twin, names)
    out = []
    for i in range(b.num_games):
        if not np.array_equal(points_c[i], points_py[i]):
            out.append(f"seed {seed} play_out lane {i}: points {points_c[i]} != {points_py[i]}")
        elif b.game(i).to_dict() != twin.game(i).to_dict():
            out.append(f"seed {seed} play_out lane {i}: the positions after differ")
    return out


def recorded_games() -> list:
    """``RECORDED`` of the checkout's ``tests/test_versions.py``."""
    path = Path(__file__).resolve().parents[1] / "tests" / "test_versions.py"
    spec = importlib.util.spec_from_file_location("test_versions", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.RECORDED


def pinned(records: list) -> tuple[int, list[str]]:
    """(strong@v1 moves checked, differences) over the recorded games."""
    from agents import make_agent

    checked, diffs = 0, []
    for names, seed, rounds, preset, expected in records:
        rules = resolve_rules(preset)
        if rounds:
            rules = rules.with_rounds(tuple(rounds))
        game = Game.new(rules, len(names), seed=seed)
        bots = [make_agent(n, seed * 10 + s) for s, n in enumerate(names)]
        lane = BatchGame(1, len(names), rules, backend="compiled")
        lane.reset()
        actions: list[int] = []
        while not game.is_over:
            seat = game.actor
            action = bots[seat].act(PlayerView(game, seat))
            if names[seat] == "strong@v1":
                lane.set_game(0, game)
                compiled = int(lane.bot_actions("strong@v1")[0])
                checked += 1
                if compiled != action:
                    diffs.append(
                        f"{names} seed {seed} move {len(actions)}: C {compiled} != {action}"
                    )
            actions.append(action)
            game.apply(action)
        digest = hashlib.sha256(",".join(map(str, actions)).encode()).hexdigest()[:16]
        if (digest, len(actions), list(game.scores)) != tuple(expected):
            diffs.append(f"{names} seed {seed}: not the recorded game")
        print(f"{' '.join(names)} seed {seed}: {len(actions)} moves, recorded game", flush=True)
    return checked, diffs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=100_000, help="decisions in all")
    parser.add_argument("--lanes", type=int, default=8)
    parser.add_argument("--steps", type=int, default=600, help="steps per table")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--positive-control", action="store_true")
    parser.add_argument("--pinned", action="store_true", help="replay the recorded games")
    args = parser.parse_args(argv)
    if args.pinned:
        checked, diffs = pinned(recorded_games())
        for line in diffs:
            print("  DIFFERENT:", line)
        print(
            f"{checked:,} strong@v1 moves of the recorded games checked, {len(diffs)} differences"
        )
        return 0 if not diffs else 1
    every = list(tables())
    # the share of positions compared, so that one pass over the tables makes the decisions
    share = min(1.0, args.decisions / (len(BOT_NAMES) * len(every) * args.steps * args.lanes))
    perturb = 1 if args.positive_control else 0
    total: Counter = Counter()
    differences = 0
    start = time.process_time()
    run = 0
    while sum(total.values()) < args.decisions:
        for rules, players in every:
            seed = args.seed * 1_000_003 + run
            run += 1
            counts, diffs = lockstep(rules, players, args.lanes, args.steps, share, seed, perturb)
            for key, n in counts.items():
                total[(rules.name, players, *key)] += n
            differences += len(diffs)
            for line in diffs[:5]:
                print("  DIFFERENT:", line)
            per_bot = ", ".join(
                f"{name} {sum(n for (bot, _ph, _r), n in counts.items() if bot == name):,}"
                for name in BOT_NAMES
            )
            print(
                f"{rules.name:>16} {players}p seed {seed}: {per_bot}; {len(diffs)} differences "
                f"({sum(total.values()):,} in all, {time.process_time() - start:,.0f} CPU s)",
                flush=True,
            )
            if sum(total.values()) >= args.decisions:
                break
    print(
        "decisions per bot and phase, and per round (the contract: round r asks CONTRACTS[r - 1]):"
    )
    for name in BOT_NAMES:
        mine = {key: k for key, k in total.items() if key[2] == name}
        row = {ph: sum(k for key, k in mine.items() if key[3] == ph) for ph in PHASES}
        by_round = {r: sum(k for key, k in mine.items() if key[4] == r) for r in range(1, 8)}
        print(
            f"  {name:>10}: " + ", ".join(f"{ph} {row[ph]:,}" for ph in PHASES)
            + "; " + ", ".join(f"r{r} {n:,}" for r, n in by_round.items())
        )  # fmt: skip
    print(f"{sum(total.values()):,} decisions compared, {differences} differences")
    if args.positive_control:
        print("positive control:", "detected" if differences else "NOT detected")
        return 0 if differences else 1
    return 0 if differences == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
