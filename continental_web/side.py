"""What the fifteen-card and knock pages share: a seat's view as the page's data.

Both games show the same table: the own hand grouped by suit, the discard pile's top, the cards
each seat is known to have taken from the pile, hand sizes and scores, no melds on the table. A
game's module (``continental_web.fifteen``, ``continental_web.knock``) adds its own words: the
prompt, the goal and its seat and page fields. Everything here reads the seat's view alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from continental_env.cards import JOKER, NUM_TYPES, card_to_str
from continental_web.errors import WebError

SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
LOG_LENGTH = 150


def verb(who: str, base: str, third: str) -> str:
    """``base`` for the person (named "you"), ``third`` for anyone else."""
    return base if who.lower() == "you" else third


def hand_groups(hand: Sequence[int]) -> list[dict[str, Any]]:
    """The hand's cards by suit, jokers last (the page's rows)."""
    groups: list[dict[str, Any]] = []
    for suit in range(4):
        cards = [card_to_str(c) for c in range(suit * 13, suit * 13 + 13) for _ in range(hand[c])]
        if cards:
            groups.append({"suit": SUIT_NAMES[suit], "cards": cards})
    if hand[JOKER]:
        groups.append({"suit": "jokers", "cards": ["JK"] * hand[JOKER]})
    return groups


def seat_row(view: Any, s: int, name: str) -> dict[str, Any]:
    """One seat as every seat sees it: hand size, score, dealer, the cards known taken."""
    return {
        "seat": s,
        "name": name,
        "you": s == view.seat,
        "hand_size": view.hand_sizes[s],
        "laid_down": None,
        "claims": None,
        "score": view.scores[s],
        "dealer": s == view.dealer,
        "known": []
        if s == view.seat
        else [card_to_str(c) for c in range(NUM_TYPES) for _ in range(view.known[s][c])],
    }


def side_state(
    game_name: str,
    view: Any,
    names: Sequence[str],
    log: Sequence[str],
    goal: str,
    prompt: str,
    seats: list[dict[str, Any]],
    own: dict[str, Any],
    extra: dict[str, Any],
) -> dict[str, Any]:
    """The page's data, from ``view`` (its seat's view) alone: what every side game shows, then
    the game's ``own`` fields, then the caller's ``extra``."""
    seat = view.seat
    actor = None if view.phase == "game_over" else view.current
    return {
        "game": game_name,
        "preset": game_name,
        "num_players": view.num_players,
        "seat": seat,
        "names": list(names),
        "round": view.hand_index + 1,
        "rounds": [],
        "contract": {"trios": 0, "runs": 0, "text": goal},
        "phase": view.phase,
        "current": view.current,
        "asked": None,
        "actor": actor,
        "your_move": actor == seat,
        "dealer": view.dealer,
        "turn": view.turn,
        "prompt": prompt,
        "hand": hand_groups(view.hand),
        "hand_size": view.hand_sizes[seat],
        "table": [],
        "discard_top": card_to_str(view.discard[-1]) if view.discard else None,
        "discard_face_down": False,
        "discard_size": len(view.discard),
        "stock_size": view.stock_size,
        "seats": seats,
        "legal": [{"id": a, "text": view.action_to_str(a)} for a in view.legal_actions],
        "log": list(log[-LOG_LENGTH:]),
        "round_label": "hand",
        "auto_pass": False,  # no claims out of turn: the page offers no "pass on claims"
        "not_shown_text": "not shown",
        **own,
        **extra,
    }


def engine_options(game: Any) -> dict[str, Any]:
    """The engine's options, as ``Game.new`` takes them (for records)."""
    return dict(game.setup.to_dict()["options"])


def describe_move(
    game: Any, action: int, names: Sequence[str], own: Callable[[str, str], str]
) -> str:
    """The move about to be played, in words, from public facts only: ``draw``, ``take`` and
    ``discard C`` here, the game's other actions by ``own(who, text)``."""
    who = names[game.actor]
    text = game.action_to_str(action)
    if text == "draw":
        return f"{who} {verb(who, 'draw', 'draws')} from the stock"
    if text == "take":
        top = card_to_str(game.discard[-1]) if game.discard else "?"
        return f"{who} {verb(who, 'take', 'takes')} {top} from the discard pile"
    if text.startswith("discard "):
        return f"{who} {verb(who, 'discard', 'discards')} {text.split()[1]}"
    return own(who, text)


def legal_words(view: Any) -> list[str]:
    """The text of each legal action of the view's seat."""
    return [view.action_to_str(a) for a in view.legal_actions]


def turn_prompt(
    view: Any, names: Sequence[str], steps: dict[str, str], calls: str, play: str
) -> str:
    """The page's prompt: the game's end, whose turn it is (``steps``: each phase's words), or
    the seat's own draw (with ``calls``, what it may announce instead) or ``play`` step."""
    if view.phase == "game_over":
        return "The game is over."
    if view.current != view.seat:
        return f"{names[view.current]}'s turn ({steps[view.phase]})"
    if view.phase != "draw":
        return play
    top = card_to_str(view.discard[-1]) if view.discard else None
    take = f"take {top} from the discard pile, or draw from the stock." if top else None
    return "Your turn: " + (take or "draw from the stock.") + calls


class SidePage(NamedTuple):
    """A side game's words for the log, and ``log_move`` that writes it."""

    describe: Callable[[Any, int, Sequence[str]], str]  # the move about to be played
    hand_end_lines: Callable[[dict[str, Any], Sequence[str]], list[str]]  # a hand's end
    hand_end: Callable[[dict[str, Any]], dict[str, Any]]  # what a finished hand showed
    dealt_line: Callable[[Any, Sequence[str]], str]  # a new deal

    def log_move(
        self, game: Any, action: int, names: Sequence[str], ends: list[dict[str, Any]] | None
    ) -> list[str]:
        """Apply ``action`` (ValueError if illegal, game unchanged); the log lines it makes:
        the move, the end of the hand it ended, the deal it made. With ``ends``, a hand's end
        appends what it showed."""
        line = self.describe(game, action, names) if game.is_legal(action) else ""
        hands_before, dealt_before = len(game.hand_history), game.hand_index
        game.apply(action)
        lines = [line]
        if len(game.hand_history) > hands_before:
            record = game.hand_history[-1]
            lines += self.hand_end_lines(record, names)
            if ends is not None:
                ends.append(self.hand_end(record))
        if game.hand_index != dealt_before and not game.is_over:
            lines.append(self.dealt_line(game, names))
        return lines


def round_number(game: Any) -> int:
    """The hand being played (the last one once the game is over), counted from 1."""
    return len(game.hand_history) + (0 if game.is_over else 1)


def check_players(title: str, limits: dict[str, int], players: int) -> None:
    """WebError 400 unless ``players`` is within the game's ``limits``."""
    if not limits["min_players"] <= players <= limits["max_players"]:
        raise WebError(
            400,
            f"{players} players: the {title} allows "
            f"{limits['min_players']}..{limits['max_players']}",
        )


# What both side games' pages say of a shipped model, and the safety caps a record of either may
# carry (name: (low, high, may be None)).
MODEL_ABOUT = "a neural network trained on this game's deals ({name})"
SAFETY_OPTIONS = {"max_turns_per_hand": (1, 200, False), "max_hands": (1, 100, False)}


def checked_options(allowed: dict[str, tuple[int, int, bool]], opts: Any) -> dict[str, Any]:
    """A record's engine options, each checked against ``allowed`` (name: low, high, may be
    None): only what the table itself creates, so that a record cannot ask for a huge game."""
    if not isinstance(opts, dict) or not set(opts) <= set(allowed):
        raise WebError(
            400, f"malformed replay file: options must be a dict with keys among {sorted(allowed)}"
        )
    for key, value in opts.items():
        low, high, may_be_none = allowed[key]
        if value is None and may_be_none:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise WebError(
                400,
                f"malformed replay file: option {key} {str(value)[:20]} is not in {low}..{high}",
            )
    return dict(opts)


def record_fields(game: Any, config: dict[str, Any]) -> dict[str, Any]:
    """What a side game's record holds of its setup: the engine's options."""
    return {"options": engine_options(game)}
