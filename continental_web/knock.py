"""The knock game (RULES.md Part 3) at the web table: its moves in words and a seat's view.

Built from ``agents.knock.KnockView`` alone, like the other games' pages: the own hand, the
discard pile's top, the cards each seat is known to have taken from the pile, hand sizes,
points, chips and the pot. When a hand ends every hand is shown (the source: "every one shows
their hand"), so its record (``hand_history``: the announcer's lays, each deadwood) is public.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.knock import KnockView
from continental_env.cards import card_to_str
from continental_env.knock.game import MAX_PLAYERS, MIN_PLAYERS, Game
from continental_env.knock.render import describe_hand_end
from continental_web.side import seat_row, side_state

GOAL = "knock with deadwood 5 or less, or rummy / color / continental; over 100 points is out"
PLAYERS = {"min_players": MIN_PLAYERS, "max_players": MAX_PLAYERS}


TITLE = "knock game"


def game_options(hands: Any, config: dict[str, Any]) -> dict[str, Any]:
    """The engine's options: the default stake (50) and safety caps (no start-page fields)."""
    return {}


def options(game: Game) -> dict[str, Any]:
    """The engine's options, as ``Game.new`` takes them (for records)."""
    return {
        "stake": game.stake,
        "max_turns_per_hand": game.max_turns_per_hand,
        "max_hands": game.max_hands,
    }


def describe(game: Game, action: int, names: Sequence[str]) -> str:
    """The move about to be played, in words, from public facts only."""
    who = names[game.actor]
    you = who.lower() == "you"

    def verb(base: str, third: str) -> str:
        return base if you else third

    text = game.action_to_str(action)
    top = card_to_str(game.discard[-1]) if game.discard else "?"
    if text == "draw":
        return f"{who} {verb('draw', 'draws')} from the stock"
    if text == "take":
        return f"{who} {verb('take', 'takes')} {top} from the discard pile"
    if text == "buy":
        return f"{who} {verb('buy', 'buys')} back"
    if text == "pass":
        return f"{who} {verb('do', 'does')} not buy back"
    if text in ("knock", "rummy", "color", "continental"):
        return f"{who} {verb('announce', 'announces')} {text}"
    kind, card = text.split()
    if kind == "discard":
        return f"{who} {verb('discard', 'discards')} {card}"
    return f"{who} {verb('discard', 'discards')} {card} and {verb('announce', 'announces')} {kind}"


def after_move(game: Game, hands_before: int, names: Sequence[str]) -> list[str]:
    """Log lines after a move: a hand's end (points, bonus, eliminations) and the next deal."""
    lines: list[str] = []
    if len(game.hand_history) > hands_before:
        lines += describe_hand_end(game.hand_history[-1], names)
    return lines


def hand_end(record: dict[str, Any]) -> dict[str, Any]:
    """What a finished hand showed (``hand_history``): every hand, its deadwood and points, the
    announcer's lays."""
    return {
        "round": record["hand"],
        "closer": record["announcer"],
        "end": record["end"],
        "points": list(record["points"]),
        "chips": list(record["chips"]),
        "deadwood": list(record["deadwood"]),
        "shown": [None if h is None else h.split() for h in record["shown"]],
        "melds": list(record["lays"] or []),
        "table": [],
    }


def dealt_line(game: Game, names: Sequence[str]) -> str:
    """The log line of a new deal."""
    dealer, first = names[game.dealer], names[game.current]
    deals = "deal" if dealer.lower() == "you" else "deals"
    plays = "play" if first.lower() == "you" else "plays"
    return f"Hand {game.hand_index + 1} dealt; {dealer} {deals}, {first} {plays} first"


def round_results(game: Game) -> list[dict[str, Any]]:
    """Each finished hand: points per seat, each seat's total right after it (buy-backs lower
    totals from the next hand on), the announcer and their lays (public).

    Totals are rebuilt backward from the current scores, so a game that did not start at zero
    shows its true totals too.
    """
    totals = list(game.scores)
    out = []
    for r in reversed(game.hand_history):
        for buy in reversed(r["buys"]):
            totals[buy["seat"]] = buy["from"]
        out.append(
            {
                "round": r["hand"],
                "points": list(r["points"]),
                "totals": list(totals),
                "chips": list(r["chips"]),
                "closer": r["announcer"],
                "turns": r["turns"],
                "melds": list(r["lays"] or []),
                "end": r["end"],
            }
        )
        totals = [t - p for t, p in zip(totals, r["points"], strict=True)]
    out.reverse()
    return out


def _prompt(view: KnockView, names: Sequence[str]) -> str:
    if view.phase == "game_over":
        return "The game is over."
    if view.current != view.seat:
        step = {"draw": "to draw", "play": "to discard", "buy": "to buy back or pass"}
        return f"{names[view.current]}'s turn ({step[view.phase]})"
    if view.phase == "buy":
        return f"Buy back to {view.buy_back_total} points for {view.buy_cost} chips, or pass?"
    words = [view.action_to_str(a) for a in view.legal_actions]
    calls = [w for w in words if w in ("knock", "rummy", "color", "continental")]
    top = card_to_str(view.discard[-1]) if view.discard else None
    if view.phase == "draw":
        text = "Your turn: " + (
            f"take {top} from the discard pile, or draw from the stock."
            if top
            else "draw from the stock."
        )
        if calls:
            text += f" You may announce: {', '.join(calls)}."
        return text
    return "Your turn: discard a card (click it twice), or discard one and announce."


def state(
    game: Game, seat: int, names: Sequence[str], log: Sequence[str], extra: dict[str, Any]
) -> dict[str, Any]:
    """Everything the page shows for ``seat``, built from its ``KnockView``."""
    view = KnockView(game, seat)
    seats = []
    for s in range(view.num_players):
        name = names[s] if view.in_game[s] else f"{names[s]} (out)"
        seats.append(
            {**seat_row(view, s, name), "chips": view.chips[s], "in_game": view.in_game[s]}
        )
    chips = ", ".join(f"{names[s]} {view.chips[s]:+d}" for s in range(view.num_players))
    out = side_state("knock", view, names, log, GOAL, _prompt(view, names), seats)
    out.update(
        {
            "title": "Knock game",
            "round_text": f"hand {view.hand_index + 1} · stake {view.stake} · pot {view.pot}",
            "goal_text": f"Chips: {chips}",
            "no_melds_text": "No melds are laid in this game: a hand ends when someone knocks "
            "or announces; the announcer's lays are shown here.",
            "score_label": "pts",
            "higher_wins": False,
            "pot": view.pot,
            "stake": view.stake,
        }
    )
    out.update(extra)
    return out


def log_move(
    game: Game, action: int, names: Sequence[str], ends: list[dict[str, Any]] | None
) -> list[str]:
    """Apply ``action`` (ValueError if illegal, game unchanged); the log lines it makes. With
    ``ends``, a hand's end appends what it showed."""
    line = describe(game, action, names) if game.is_legal(action) else ""
    hands_before, dealt_before = len(game.hand_history), game.hand_index
    game.apply(action)
    lines = [line, *after_move(game, hands_before, names)]
    if ends is not None and len(game.hand_history) > hands_before:
        ends.append(hand_end(game.hand_history[-1]))
    if game.hand_index != dealt_before and not game.is_over:
        lines.append(dealt_line(game, names))
    return lines


def first_line(game: Game, names: Sequence[str]) -> str:
    """The log's first line: the first deal."""
    return dealt_line(game, names)
