"""Play the fifteen-card game in the terminal against bots: ``continental play --game fifteen``.

``python -m agents.play.fifteen`` is the same command.

You sit in seat ``--seat`` and the bots fill the other seats in the order given. At each of your
decisions the table is drawn from your seat (other hands hidden, cards they took from the pile
shown), what the bots did since your last move is listed, and your legal moves are numbered with
their text form. Type a move as text (``draw``, ``take``, ``out``, ``discard 7H``, ``out 7H``)
or its number from the menu. ``help`` lists the commands, ``table`` redraws the table, ``quit``
(or end of input) leaves. A bad move gets a one-line message and a new prompt; the game is
unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from agents.cli import ArgumentParser
from agents.play.table import SideTerminalTable, table_main

HELP = """Commands:
  <number>          the move with that number in the menu
  draw | take       draw from the stock / take the up-card
  out               first turn only, before drawing: go out with the 15 cards dealt
  discard C         discard card C and end your turn
  out C             discard card C and go out with the other 15
  table             draw the table again
  help              this text
  quit              leave the game
Going out: all 15 cards as sequences of one suit, 3+3+3+3+3, 4+4+4+3 or 5+4+3+3.
Cards: rank A23456789TJQK then suit CDHS, e.g. 7H TS AC; the joker is JK."""


class FifteenHumanGame(SideTerminalTable):
    """One fifteen-card game between a person (reading lines from ``input_fn``) and bots."""

    GAME = "fifteen"
    HELP = HELP

    def title(self) -> str:
        return f"Fifteen-card Continental, {self.game.num_players} players. Type 'help'."

    def log_hand_end(self, last: dict[str, Any]) -> None:
        if last["winner"] is None:
            why = "the stock ran out" if last["end"] == "stock" else "the turn limit"
            self.events.append(f"== Hand {last['hand']} over: no winner ({why}).")
        else:
            pay = last["payment"]
            self.events.append(
                f"== Hand {last['hand']} over: {self.names[last['winner']]} goes out with "
                f"{' | '.join(last['melds'])} and collects {pay['total']} from each."
            )
        chips = ", ".join(f"{n} {c:+d}" for n, c in zip(self.names, last["chips"], strict=True))
        self.events.append(f"   Chips: {chips}")

    def final_lines(self) -> list[str]:
        game = self.game
        lines = ["Game over. Final chips (highest wins):"]
        for s in sorted(range(game.num_players), key=lambda s: -game.scores[s]):
            lines.append(f"  {self.names[s]:<12} {game.scores[s]:>5}")
        return [*lines, "Winner: " + " and ".join(self.names[s] for s in game.winners())]


def _options(parser: ArgumentParser) -> None:
    parser.add_argument("--target", type=int, default=50, help="the game ends at this total")
    parser.add_argument("--hands", type=int, default=None, help="or after this many hands")


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point of the fifteen-card terminal game."""
    return table_main(
        FifteenHumanGame,
        argv,
        "Play the fifteen-card game in the terminal against bots.",
        "greedy,greedy,greedy",
        _options,
        lambda args: {"target": args.target, "hands": args.hands},
    )


if __name__ == "__main__":
    sys.exit(main())
