"""The fifteen-card game (RULES.md Part 2) at the web table: its moves in words and a seat's view.

Built from ``agents.fifteen.FifteenView`` alone, like the contract game's page: the own hand, the
discard pile's top, the cards each seat is known to have taken from the pile, hand sizes, chips.
A hand's winner shows the melds they went out with (``hand_history``): that is public.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.fifteen import FifteenView
from continental_env.cards import card_to_str
from continental_env.fifteen.game import MAX_PLAYERS, MIN_PLAYERS, Game
from continental_web.side import seat_row, side_state

GOAL = "15 cards in sequences: 3+3+3+3+3, 4+4+4+3 or 5+4+3+3"
TARGET = 50


TITLE = "fifteen-card game"


def game_options(hands: Any, config: dict[str, Any]) -> dict[str, Any]:
    """The engine's options from the start page's ``hands`` (empty: play to ``TARGET`` chips),
    noted in ``config``; WebError 400 for a bad one."""
    from continental_web.errors import WebError

    if hands is not None and (
        isinstance(hands, bool) or not isinstance(hands, int) or not 1 <= hands <= 20
    ):
        raise WebError(400, f"hands {hands!r} must be an integer in 1..20 (or empty: to 50 chips)")
    config["hands_to_play"] = hands
    return {"target": None if hands else TARGET, "hands": hands}


def options(game: Game) -> dict[str, Any]:
    """The engine's options, as ``Game.new`` takes them (for records)."""
    return {
        "target": game.target,
        "hands": game.hand_limit,
        "max_turns_per_hand": game.max_turns_per_hand,
        "max_hands": game.max_hands,
    }


def describe(game: Game, action: int, names: Sequence[str]) -> str:
    """The move about to be played, in words, from public facts only."""
    who = names[game.actor]
    you = who.lower() == "you"
    text = game.action_to_str(action)
    top = card_to_str(game.discard[-1]) if game.discard else "?"
    if text == "draw":
        return f"{who} {'draw' if you else 'draws'} from the stock"
    if text == "take":
        return f"{who} {'take' if you else 'takes'} {top} from the discard pile"
    if text == "out":
        return f"{who} {'go' if you else 'goes'} out with the cards dealt"
    kind, card = text.split()
    if kind == "discard":
        return f"{who} {'discard' if you else 'discards'} {card}"
    return f"{who} {'discard' if you else 'discards'} {card} and {'go' if you else 'goes'} out"


def after_move(game: Game, hands_before: int, names: Sequence[str]) -> list[str]:
    """Log lines after a move: a hand's end and its payments."""
    if game.hand_index == hands_before and not (
        game.is_over and len(game.hand_history) > hands_before
    ):
        return []
    last = game.hand_history[-1]
    lines = []
    if last["winner"] is None:
        lines.append(f"Hand {last['hand']} over: nobody went out ({last['end']})")
    else:
        lines.append(f"Hand {last['hand']} over: {names[last['winner']]} went out")
        lines.append("  " + " | ".join(last["melds"] or []))
    chips = ", ".join(f"{n} {c:+d}" for n, c in zip(names, last["chips"], strict=True))
    lines.append(f"  chips: {chips}")
    if not game.is_over:
        lines.append(f"Hand {game.hand_index + 1} dealt; {names[game.dealer]} deals")
    return lines


def hand_end(record: dict[str, Any]) -> dict[str, Any]:
    """What a finished hand showed (``hand_history``): the winner's sequences and the chips."""
    return {
        "round": record["hand"],
        "closer": record["winner"],
        "end": record["end"],
        "points": list(record["chips"]),
        "melds": list(record["melds"] or []),
        "shown": None,
        "table": [],
    }


def round_results(game: Game) -> list[dict[str, Any]]:
    """Each finished hand: chips won or paid per seat, the winner and their melds (public)."""
    return [
        {
            "round": r["hand"],
            "points": list(r["chips"]),
            "closer": r["winner"],
            "turns": r["turns"],
            "melds": list(r["melds"] or []),
            "end": r["end"],
        }
        for r in game.hand_history
    ]


def _prompt(view: FifteenView, names: Sequence[str]) -> str:
    if view.phase == "game_over":
        return "The game is over."
    if view.current != view.seat:
        step = "to draw" if view.phase == "draw" else "to discard"
        return f"{names[view.current]}'s turn ({step})"
    top = card_to_str(view.discard[-1]) if view.discard else None
    if view.phase == "draw":
        text = "Your turn: " + (
            f"take {top} from the discard pile, or draw from the stock."
            if top
            else "draw from the stock."
        )
        if "out" in [view.action_to_str(a) for a in view.legal_actions]:
            text += " Your 15 cards go out as dealt!"
        return text
    return "Your turn: discard a card (click it twice), or discard one and go out."


def state(
    game: Game, seat: int, names: Sequence[str], log: Sequence[str], extra: dict[str, Any]
) -> dict[str, Any]:
    """Everything the page shows for ``seat``, built from its ``FifteenView``."""
    view = FifteenView(game, seat)
    seats = [seat_row(view, s, names[s]) for s in range(view.num_players)]
    out = side_state("fifteen", view, names, log, GOAL, _prompt(view, names), seats)
    out.update({"score_label": "chips", "higher_wins": True, "target": view.target})
    out.update(extra)
    return out


def log_move(
    game: Game, action: int, names: Sequence[str], ends: list[dict[str, Any]] | None
) -> list[str]:
    """Apply ``action`` (ValueError if illegal, game unchanged); the log lines it makes. With
    ``ends``, a hand's end appends what it showed."""
    line = describe(game, action, names) if game.is_legal(action) else ""
    hands_before = len(game.hand_history)
    game.apply(action)
    if ends is not None and len(game.hand_history) > hands_before:
        ends.append(hand_end(game.hand_history[-1]))
    return [line, *after_move(game, hands_before, names)]


def first_line(game: Game, names: Sequence[str]) -> str:
    """The log's first line: the first deal."""
    return f"Hand 1 dealt; {names[game.dealer]} deals, {names[game.current]} plays first"


PLAYERS = {"min_players": MIN_PLAYERS, "max_players": MAX_PLAYERS}
