"""Play the knock game in the terminal against bots: ``continental play --game knock``.

``python -m agents.knock.play`` is the same command.

You sit in seat ``--seat`` and the bots fill the other seats in the order given. At each of your
decisions the table is drawn from your seat (other hands hidden, cards they took from the pile
shown), what the bots did since your last move is listed, and your legal moves are numbered with
their text form. Type a move as text (``draw``, ``take``, ``knock``, ``discard 7H``,
``rummy 7H``, ``buy``, ``pass`` ...) or its number from the menu. ``help`` lists the commands,
``table`` redraws the table, ``quit`` (or end of input) leaves. A bad move gets a one-line message
and a new prompt; the game is unchanged.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from agents.cli import ArgumentParser, parse_names
from agents.knock import KnockView, make_agent
from continental_env.cards import format_cards
from continental_env.knock.game import BUY, DRAW, PASS, TAKE, Game
from continental_env.knock.render import describe_hand_end, render_table

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

QUIT_WORDS = ("quit", "exit", "q")
MENU_NUMBER = re.compile(r"\d{1,4}")


class KnockHumanGame:
    """One knock game between a person (reading lines from ``input_fn``) and bots."""

    def __init__(
        self,
        opponents: Sequence[str],
        seed: int | None = None,
        seat: int = 0,
        name: str = "you",
        options: dict[str, Any] | None = None,
        input_fn: Callable[[str], str] = input,
        output: Callable[[str], None] = print,
    ) -> None:
        if not opponents:
            raise ValueError("choose at least one opponent")
        players = len(opponents) + 1
        if not 0 <= seat < players:
            raise ValueError(f"--seat {seat} is out of range 0..{players - 1}")
        self.game = Game.new(num_players=players, seed=seed, **(options or {}))
        self.seat = seat
        self.input_fn = input_fn
        self.output = output
        bot_names = list(opponents)
        self.names: list[str] = []
        self.bots: dict[int, Any] = {}
        for s in range(players):
            if s == seat:
                self.names.append(name)
                continue
            bot = bot_names.pop(0)
            self.names.append(f"{bot}_{s}")
            self.bots[s] = make_agent(bot, None if seed is None else seed * 1000 + s)
        self.events: list[str] = []

    def run(self) -> int:
        """Play until the game ends or the person quits; returns a process exit code."""
        try:
            return self._loop()
        except KeyboardInterrupt:
            self.output("\nBye (game left unfinished).")
            return 0

    def _loop(self) -> int:
        game = self.game
        self.output(
            f"Knock Continental, {game.num_players} players, stake {game.stake}. Type 'help'."
        )
        show_table = True
        while not game.is_over:
            actor = game.actor
            if actor != self.seat:
                self._apply_and_log(actor, self.bots[actor].act(KnockView(game, actor)))
                show_table = True
                continue
            if show_table:
                self._show_turn()
                show_table = False
            try:
                line = self.input_fn(f"[{game.phase}] {self.names[self.seat]}> ")
            except (EOFError, KeyboardInterrupt):
                self.output("\nBye (game left unfinished).")
                return 0
            outcome = self._handle(line)
            if outcome == "quit":
                self.output("Bye (game left unfinished).")
                return 0
            if outcome == "moved":
                show_table = True
        self._flush_events()
        self._show_final()
        return 0

    def _handle(self, line: str) -> str:
        """Act on one input line: 'quit', 'moved' or 'again'."""
        game = self.game
        text = line.strip()
        word = text.lower()
        if not text:
            self.output("Type a move, its number, or 'help'.")
            return "again"
        if word in QUIT_WORDS:
            return "quit"
        if word in ("help", "h", "?"):
            self.output(HELP)
            return "again"
        if word in ("table", "t"):
            self._show_turn()
            return "again"
        legal = game.legal_actions()
        if text.isascii() and text.isdigit():
            if not MENU_NUMBER.fullmatch(text) or not 0 <= int(text) < len(legal):
                self.output(f"No move number {text[:12]}: choose 0..{len(legal) - 1}.")
                return "again"
            action = legal[int(text)]
        else:
            try:
                action = game.action_from_str(text)
            except ValueError as exc:
                self.output(f"Could not read that move: {exc}")
                return "again"
        if not game.is_legal(action):
            try:
                game.apply(action)  # raises with the engine's explanation, changes nothing
            except ValueError as exc:
                self.output(f"Not legal now: {exc}")
                return "again"
        self._apply_and_log(self.seat, action)
        return "moved"

    def _apply_and_log(self, seat: int, action: int) -> None:
        game = self.game
        who = self.names[seat]
        top = format_cards(game.discard[-1:])
        hands_before = len(game.hand_history)
        buys_before = len(game.hand_history[-1]["buys"]) if game.hand_history else 0
        text = game.action_to_str(action)
        game.apply(action)
        if action == BUY:
            b = game.hand_history[hands_before - 1]["buys"][buys_before]
            self.events.append(f"{who}: buys back for {b['cost']} chips, {b['from']} -> {b['to']}")
        elif action == PASS:
            self.events.append(f"{who}: does not buy back")
        elif len(game.hand_history) > hands_before:
            self._log_hand_end()
            return
        elif action == TAKE:
            self.events.append(f"{who}: takes {top}")
        elif action == DRAW:
            self.events.append(f"{who}: draws from the stock")
        else:
            self.events.append(f"{who}: {text.replace('discard', 'discards')}")

    def _log_hand_end(self) -> None:
        last = self.game.hand_history[-1]
        lines = describe_hand_end(last, self.names)
        self.events.append("== " + lines[0])
        self.events += ["  " + line for line in lines[1:]]
        for s in last["players"]:
            shown = last["shown"][s]
            self.events.append(f"   {self.names[s]} held {shown}")
        chips = ", ".join(f"{n} {c:+d}" for n, c in zip(self.names, last["chips"], strict=True))
        self.events.append(f"   Chips this hand: {chips}")

    def _flush_events(self) -> None:
        if self.events:
            self.output("Since your last move:")
            for e in self.events:
                self.output("  " + e)
            self.events = []

    def _show_turn(self) -> None:
        game = self.game
        self._flush_events()
        self.output("")
        self.output(render_table(game, seat=self.seat, names=self.names))
        self.output("")
        self.output("Your moves:")
        entries = [f"{i:>3}) {game.action_to_str(a)}" for i, a in enumerate(game.legal_actions())]
        width = max(len(e) for e in entries) + 2
        per_row = max(1, 96 // width)
        for i in range(0, len(entries), per_row):
            self.output("".join(e.ljust(width) for e in entries[i : i + per_row]).rstrip())

    def _show_final(self) -> None:
        game = self.game
        self.output("")
        self.output(render_table(game, seat=None, names=self.names))
        self.output("")
        self.output("Game over. Final net chips (highest wins):")
        for s in sorted(range(game.num_players), key=lambda s: -game.chips[s]):
            self.output(f"  {self.names[s]:<12} {game.chips[s]:>6}  ({game.scores[s]} points)")
        self.output("Pot won by: " + " and ".join(self.names[s] for s in game.winners()))


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point of the knock terminal game."""
    parser = ArgumentParser(
        prog="continental play --game knock",
        description="Play the knock game in the terminal against bots.",
    )
    parser.add_argument("--opponents", default="greedy,greedy,greedy", help="random, greedy")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--seat", type=int, default=0, help="your seat (seat 0 deals hand 1)")
    parser.add_argument("--name", default="you")
    parser.add_argument("--stake", type=int, default=50, help="the ante (a multiple of 5)")
    args = parser.parse_args(argv)
    try:
        opponents = parse_names(args.opponents, "--opponents")
        session = KnockHumanGame(
            opponents, seed=args.seed, seat=args.seat, name=args.name,
            options={"stake": args.stake},
        )  # fmt: skip
    except ValueError as exc:
        parser.error(str(exc))
    return session.run()


if __name__ == "__main__":
    sys.exit(main())
