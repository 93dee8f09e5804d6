"""The quick demo: one game between the bots, drawn as text, then a short duplicate evaluation.

python -m agents.demo [--seed 7] [--deals 30] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import sys

from agents import make_agent
from agents.contract.view import view_for
from agents.evaluate.harness import evaluate, format_report
from agents.evaluate.report import seat_label
from continental_env.contract.game import Game
from continental_env.contract.render import render_table


def play_demo_game(lineup: list[str], seed: int) -> Game:
    """Play one game, printing the table just before each round ends and the result."""
    game = Game.new("continental", len(lineup), seed=seed)
    bots = [make_agent(name, seed + i) for i, name in enumerate(lineup)]
    names = [seat_label(name, seat) for seat, name in enumerate(lineup)]
    print(f"A {len(lineup)}-player game of Continental, seed {seed}: {', '.join(names)}\n")
    while not game.is_over:
        rounds_done = len(game.state.round_history)
        before = game.clone()
        seat = game.actor
        action = bots[seat].act(view_for(game, seat))
        game.apply(action)
        if len(game.state.round_history) > rounds_done:
            result = game.state.round_history[-1]
            closer = result["closer"]
            print(render_table(before, names=names))
            how = (
                "nobody" if closer is None else f"{names[closer]} ({before.action_to_str(action)})"
            )
            print(f"-> round {result['round']} closed by {how}; points {result['points']}")
            print(f"   totals {game.state.scores}\n")
    winners = ", ".join(names[s] for s in game.winners())
    print(f"Final totals {game.state.scores}: lowest wins -> {winners}\n")
    return game


def closing_hint() -> str:
    """The next command, run by this interpreter as it can be typed here (the README's
    ``.venv/bin/python`` when run from the checkout): a bare ``python`` or ``continental`` is not
    on the PATH of a virtualenv that was never activated."""
    python = sys.executable or "python3"
    relative = os.path.relpath(python)
    if not relative.startswith(os.pardir):
        python = relative if os.sep in relative else os.path.join(os.curdir, relative)
    return (
        f"Full ladder: {python} -m agents.evaluate --agents strong,greedy --players 4 "
        "--games 2000 --jobs 2 --json report.json --plot report.png"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7, help="seed of the demo game and deals")
    parser.add_argument("--deals", type=int, default=30, help="duplicate deals to evaluate")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args(argv)
    play_demo_game(["strong", "greedy", "random", "greedy"], args.seed)
    print(f"Duplicate evaluation: strong vs greedy, 4 players, {args.deals} deals")
    report = evaluate(
        ["strong", "greedy"],
        players=4,
        games=args.deals,
        seed=args.seed,
        jobs=args.jobs,
        progress=True,
    )
    print(format_report(report))
    print("\n" + closing_hint())


if __name__ == "__main__":
    main()
