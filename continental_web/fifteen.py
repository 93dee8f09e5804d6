"""The fifteen-card game (RULES.md Part 2) at the web table: its moves in words and a seat's view.

Built from ``agents.fifteen.FifteenView`` alone, like the contract game's page: the own hand, the
discard pile's top, the cards each seat is known to have taken from the pile, hand sizes, chips.
A hand's winner shows the melds they went out with (``hand_history``): that is public.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.fifteen import FifteenView
from continental_env.fifteen.game import MAX_PLAYERS, MIN_PLAYERS, Game
from continental_web import side

GOAL = "15 cards in sequences: 3+3+3+3+3, 4+4+4+3 or 5+4+3+3"
TARGET = 50
STEPS = {"draw": "to draw", "play": "to discard"}
PLAY_PROMPT = "Your turn: discard a card (click it twice), or discard one and go out."


TITLE = "fifteen-card game"
PLAYERS = {"min_players": MIN_PLAYERS, "max_players": MAX_PLAYERS}
FIELDS = ("hands",)  # the start page's fields this game takes
MODEL_ABOUT = side.MODEL_ABOUT
# The engine options a record may carry: name: (low, high, may be None).
RECORD_OPTIONS = {"target": (1, 1000, True), "hands": (1, 20, True), **side.SAFETY_OPTIONS}


def start_options(
    preset: Any, rounds: Any, hands: Any, players: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The engine's options and the game's setup from the start page's fields; WebError 400
    naming a bad one."""
    from continental_web.errors import WebError

    if rounds is not None:
        raise WebError(400, "rounds is a field of the contract game; this game takes hands")
    side.check_players(TITLE, PLAYERS, players)
    config: dict[str, Any] = {"preset": "fifteen"}
    return game_options(hands, config), config


def replay_options(record: dict[str, Any]) -> dict[str, Any]:
    """The engine options a record asks for, each checked (``RECORD_OPTIONS``)."""
    return side.checked_options(RECORD_OPTIONS, record.get("options"))


record_fields = side.record_fields
round_number = side.round_number


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


options = side.engine_options  # the engine's options as ``Game.new`` takes them (records)


def _own_move(who: str, text: str) -> str:
    """``out`` or ``out C`` in words (``describe_move`` has the others)."""
    if text == "out":
        return f"{who} {side.verb(who, 'go', 'goes')} out with the cards dealt"
    card = text.split()[1]
    discards, goes = side.verb(who, "discard", "discards"), side.verb(who, "go", "goes")
    return f"{who} {discards} {card} and {goes} out"


def describe(game: Game, action: int, names: Sequence[str]) -> str:
    """The move about to be played, in words, from public facts only."""
    return side.describe_move(game, action, names, _own_move)


def hand_end_lines(last: dict[str, Any], names: Sequence[str]) -> list[str]:
    """Log lines of a hand's end and its payments."""
    lines = []
    if last["winner"] is None:
        lines.append(f"Hand {last['hand']} over: nobody went out ({last['end']})")
    else:
        lines.append(f"Hand {last['hand']} over: {names[last['winner']]} went out")
        lines.append("  " + " | ".join(last["melds"] or []))
    chips = ", ".join(f"{n} {c:+d}" for n, c in zip(names, last["chips"], strict=True))
    lines.append(f"  chips: {chips}")
    return lines


def dealt_line(game: Game, names: Sequence[str]) -> str:
    """The log line of a new deal."""
    return f"Hand {game.hand_index + 1} dealt; {names[game.dealer]} deals"


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
            "verb": "went out",
        }
        for r in game.hand_history
    ]


def _prompt(view: FifteenView, names: Sequence[str]) -> str:
    dealt_out = " Your 15 cards go out as dealt!" if "out" in side.legal_words(view) else ""
    return side.turn_prompt(view, names, STEPS, dealt_out, PLAY_PROMPT)


def state(
    game: Game, seat: int, names: Sequence[str], log: Sequence[str], extra: dict[str, Any]
) -> dict[str, Any]:
    """Everything the page shows for ``seat``, built from its ``FifteenView``."""
    view = FifteenView(game, seat)
    seats = [side.seat_row(view, s, names[s]) for s in range(view.num_players)]
    target = f" · first to {view.target} chips ends the game" if view.target else ""
    own = {
        "score_label": "chips",
        "higher_wins": True,
        "target": view.target,
        "title": "Fifteen-card game",
        "round_text": f"hand {view.hand_index + 1}{target}",
        "goal_text": "" if game.is_over else f"Go out: {GOAL}",
        "no_melds_text": "No melds are laid in this game: the first whose 15 cards (after a "
        "discard) form sequences goes out.",
        "nobody_text": "Nobody went out (stock or turn limit)",
    }
    return side.side_state(
        "fifteen", view, names, log, GOAL, _prompt(view, names), seats, own, extra
    )


def first_line(game: Game, names: Sequence[str]) -> str:
    """The log's first line: the first deal."""
    return f"Hand 1 dealt; {names[game.dealer]} deals, {names[game.current]} plays first"


PAGE = side.SidePage(describe, hand_end_lines, hand_end, dealt_line)
log_move = PAGE.log_move  # apply a move; the log lines it makes
