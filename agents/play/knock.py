"""Play the knock game in the terminal against bots: ``continental play --game knock``.

``python -m agents.play.knock`` is the same command.

You sit in seat ``--seat`` and the bots fill the other seats in the order given. At each of your
decisions the table is drawn from your seat (other hands hidden, cards they took from the pile
shown), what the bots did since your last move is listed, and your legal moves are numbered with
their text form. Type a move as text (``draw``, ``take``, ``knock``, ``discard 7H``,
``rummy 7H``, ``buy``, ``pass`` ...) or its number from the menu. ``help`` lists the commands,
``table`` redraws the table, ``quit`` (or end of input) leaves. A bad move gets a one-line message
and a new prompt; the game is unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from agents.play.table import SideTerminalTable, table_main
from continental_env.knock.render import describe_hand_end

HELP = """Commands:
  <number>          the move with that number in the menu
  draw | take       draw from the stock / take the top discard
  knock             start of a turn: end the hand with deadwood 5 or less (aces count 1)
  rummy | color | continental
                    start of a turn: all 10 in lays / all of one suit / one 10-card lay
  discard C         discard card C and end your turn
  rummy C | color C | continental C
                    discard card C and announce with the 10 left
  buy | pass        between hands, over 80 points: buy back (or not)
  table             draw the table again
  help              this text
  quit              leave the game
Lays: 3+ of a rank, or 3+ of a suit in a row (A low or high, not K A 2); jokers wild.
Deadwood: J Q K T 10, 2-9 their index, jokers 20, aces 15 (1 when you knock). Over 100: out.
Cards: rank A23456789TJQK then suit CDHS, e.g. 7H TS AC; the joker is JK."""


class KnockHumanGame(SideTerminalTable):
    """One knock game between a person (reading lines from ``input_fn``) and bots."""

    GAME = "knock"
    HELP = HELP
    DESCRIPTION = "Play the knock game in the terminal against bots."
    OPTIONS = (("--stake", int, 50, "the ante (a multiple of 5)"),)

    def title(self) -> str:
        game = self.game
        return f"Knock Continental, {game.num_players} players, stake {game.stake}. Type 'help'."

    def move_words(self, text: str, top: str) -> str:
        if text == "buy":
            b = self.game.hand_history[-1]["buys"][-1]  # the buy-back just made
            return f"buys back for {b['cost']} chips, {b['from']} -> {b['to']}"
        if text == "pass":
            return "does not buy back"
        return super().move_words(text, top)

    def log_hand_end(self, last: dict[str, Any]) -> None:
        lines = describe_hand_end(last, self.names)
        self.events.append("== " + lines[0])
        self.events += ["  " + line for line in lines[1:]]
        for s in last["players"]:
            shown = last["shown"][s]
            self.events.append(f"   {self.names[s]} held {shown}")
        self.events.append(self.chips_line("Chips this hand", last["chips"]))

    def final_lines(self) -> list[str]:
        game = self.game
        return self.standings(
            "Game over. Final net chips (highest wins):",
            game.chips,
            lambda s: f"{game.chips[s]:>6}  ({game.scores[s]} points)",
            "Pot won by: ",
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point of the knock terminal game."""
    return table_main(KnockHumanGame, argv)


if __name__ == "__main__":
    sys.exit(main())
