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
    DESCRIPTION = "Play the fifteen-card game in the terminal against bots."
    OPTIONS = (
        ("--target", int, 50, "the game ends at this total"),
        ("--hands", int, None, "or after this many hands"),
    )

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
        self.events.append(self.chips_line("Chips", last["chips"]))

    def final_lines(self) -> list[str]:
        scores = self.game.scores
        heading = "Game over. Final chips (highest wins):"
        return self.standings(heading, scores, lambda s: f"{scores[s]:>5}", "Winner: ")


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point of the fifteen-card terminal game."""
    return table_main(FifteenHumanGame, argv)


if __name__ == "__main__":
    sys.exit(main())
