"""The contract game at the web table: its moves in words, a round's end, a seat's hand and prompt.

Everything here reads public facts (the action's text form, the discard top before it, the melds
it added, the round's record) or a seat's ``PlayerView``; ``continental_web.view.seat_state``
puts a page together from them. ``second_person`` turns any game's log line about the person
named "you" into the second person.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agents.contract.view import PlayerView
from continental_env.cards import JOKER, NUM_TYPES, card_from_str, card_to_str, format_cards
from continental_env.contract.game import CLAIM, DRAW, PASS, TAKE, Game

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def describe(game: Game, action: int, names: Sequence[str]) -> str:
    """The move ``action`` about to be played in ``game``, in words, from public facts only."""
    seat = game.actor
    who = names[seat]
    text = game.action_to_str(action)
    top = card_to_str(game.state.discard[-1]) if game.state.discard else "?"
    if action == DRAW:
        return f"{who} draws from the stock"
    if action == TAKE:
        return f"{who} takes {top} from the discard pile"
    if action == CLAIM:
        return f"{who} claims {top} and takes a penalty card"
    if action == PASS:
        return f"{who} passes on {top}"
    kind, *args = text.split()
    if kind == "laydown":
        return f"{who} lays down"  # the melds are added by ``after_move``
    if kind == "close":
        return f"{who} closes"
    if kind == "discard":
        return f"{who} discards {args[0]}"
    if kind == "layoff":
        meld = game.state.table[int(args[1])]
        where = f"{possessive(names[meld.owner])} {meld.kind} #{args[1]}"
        end = f" at the {args[2]} end" if len(args) == 3 else ""
        return f"{who} lays off {args[0]} on {where}{end}"
    if kind == "swap":
        meld = game.state.table[int(args[1])]
        owner = possessive(names[meld.owner])
        return f"{who} swaps {args[0]} for the joker in {owner} {meld.kind} #{args[1]}"
    if kind == "movejoker":
        return f"{who} moves the joker of run #{args[0]} to the {args[2]} end of run #{args[1]}"
    return f"{who}: {text}"


def possessive(name: str) -> str:
    """``Casual (1)'s`` or ``your``."""
    return "your" if name.lower() == "you" else f"{name}'s"


# Third-person verbs of the log lines and their second-person forms ("you draw", "you are").
_SECOND_PERSON = {
    "announces": "announce",
    "buys": "buy",
    "calls": "call",
    "claims": "claim",
    "closes": "close",
    "deals": "deal",
    "discards": "discard",
    "does": "do",
    "draws": "draw",
    "goes": "go",
    "has": "have",
    "is": "are",
    "lays": "lay",
    "moves": "move",
    "passes": "pass",
    "pays": "pay",
    "plays": "play",
    "swaps": "swap",
    "takes": "take",
}
_VERB = re.compile(r"\b(" + "|".join(_SECOND_PERSON) + r")\b")
_YOU = re.compile(r"\byou(?:'s)? ", re.IGNORECASE)


def second_person(line: str) -> str:
    """A log line about the person named "you" in the second person: ``you draws`` -> ``you
    draw``, ``you claims 7C and takes`` -> ``you claim 7C and take``, ``you's trio`` ->
    ``your trio``, ``you is out`` -> ``you are out``.

    Each verb of a clause whose subject is "you" (up to the next ``;`` or ``,``) changes.
    """
    if not _YOU.search(line):
        return line
    line = re.sub(r"\b([Yy])ou's\b", r"\1our", line)
    out = []
    for part in re.split(r"([;,:])", line):
        match = re.search(r"\byou (?=\w)", part, re.IGNORECASE)
        if match:
            head, tail = part[: match.end()], part[match.end() :]
            # the verb right after "you", then any "and <verb>" in the same clause
            tail = (
                _VERB.sub(lambda m: _SECOND_PERSON[m[1]], tail, count=1)
                if _VERB.match(tail)
                else tail
            )
            tail = re.sub(
                r"\band (" + "|".join(_SECOND_PERSON) + r")\b",
                lambda m: "and " + _SECOND_PERSON[m[1]],
                tail,
            )
            part = head + tail
        out.append(part)
    return "".join(out)


def after_move(game: Game, melds_before: int, round_before: int, names: Sequence[str]) -> list[str]:
    """Extra log lines after a move: the melds a lay-down added, a round's end."""
    lines = []
    if game.state.round_index == round_before and len(game.state.table) > melds_before:
        for m in range(melds_before, len(game.state.table)):
            meld = game.state.table[m]
            lines.append(f"  {meld.kind} #{m}: {format_cards(meld.cards)}")
    if game.state.round_index != round_before:
        last = game.state.round_history[-1]
        closer = last["closer"]
        how = "nobody closed" if closer is None else f"{names[closer]} closed"
        points = ", ".join(f"{n} {p}" for n, p in zip(names, last["points"], strict=True))
        lines.append(f"Round {last['round']} over: {how}. Points: {points}")
        if not game.is_over:
            lines.append(f"Round {game.state.round} dealt; {names[game.state.dealer]} deals")
    return lines


def round_snapshot(game: Game, action: int) -> tuple[list[list[int]], list[dict[str, Any]], int]:
    """Each hand and the table before ``action``, and its actor: the round's end is counted from
    them if ``action`` ends the round (the engine deals the next round at once)."""
    hands = [list(h) for h in game.state.hands]
    actor = game.actor
    text = game.action_to_str(action).split()
    if text[0] in ("discard", "close") and len(text) > 1:
        hands[actor][card_from_str(text[1])] -= 1  # the card leaves the hand
    elif text[0] == "close":
        hands[actor] = [0] * len(hands[actor])
    table = [
        {"owner": m.owner, "kind": m.kind, "cards": [card_to_str(c) for c in m.cards]}
        for m in game.state.table
    ]
    return hands, table, actor


def round_end(
    game: Game, hands: list[list[int]], table: list[dict[str, Any]], actor: int
) -> dict[str, Any]:
    """What a finished contract round showed: every hand as counted (a seat whose counted cards
    cannot be told from the position before the last move shows none), points, the final table.

    At the table every other player counts the cards still in hand face up (RULES 1.6), so these
    are public once the round is over.
    """
    last = game.state.round_history[-1]
    pts = game.points
    shown: list[list[str] | None] = []
    for s, hand in enumerate(hands):
        if s == last["closer"]:
            shown.append([])
            continue
        cards = [card_to_str(c) for c in range(NUM_TYPES) for _ in range(max(hand[c], 0))]
        counted = sum(n * pts[c] for c, n in enumerate(hand) if n > 0)
        shown.append(cards if counted == last["points"][s] and min(hand) >= 0 else None)
    return {
        "round": last["round"],
        "closer": last["closer"],
        "points": list(last["points"]),
        "shown": shown,
        "table": table,
    }


def contract_text(trios: int, runs: int) -> str:
    """A round's contract in words, e.g. ``2 trios`` or ``1 trio + 1 run``."""
    parts = []
    if trios:
        parts.append(f"{trios} trio{'s' if trios > 1 else ''}")
    if runs:
        parts.append(f"{runs} run{'s' if runs > 1 else ''}")
    return " + ".join(parts)


def hand_groups(view: PlayerView) -> list[dict[str, Any]]:
    """The own hand sorted by suit then rank, one group per suit, jokers last."""
    groups: list[dict[str, Any]] = []
    for suit, letter in enumerate("CDHS"):
        cards = [
            card_to_str(c) for c in range(suit * 13, suit * 13 + 13) for _ in range(view.hand[c])
        ]
        if cards:
            groups.append({"suit": SUIT_NAMES[letter], "cards": cards})
    if view.hand[JOKER]:
        groups.append({"suit": "jokers", "cards": ["JK"] * view.hand[JOKER]})
    return groups


def prompt_text(view: PlayerView, names: Sequence[str]) -> str:
    """Whose turn it is and what is asked, in words, for ``view.seat``."""
    if view.phase == "game_over":
        return "The game is over."
    me = view.seat
    top = card_to_str(view.discard[-1]) if view.discard else None
    if view.phase == "claim":
        if view.asked == me:
            return (
                f"{names[view.current]} declined {top}. Claim {top} "
                "(you also take a penalty card and discard nothing) or pass?"
            )
        return f"{names[view.asked]} is asked whether to claim {top}"
    if view.current != me:
        step = "to draw" if view.phase == "draw" else "to play"
        return f"{names[view.current]}'s turn ({step})"
    if view.phase == "draw":
        if top is None:
            return "Your turn: draw from the stock."
        return f"Your turn: take {top} from the discard pile, or draw from the stock."
    if view.hand_size == 1 and view.laid_down[me]:
        return "Your turn: close with your last card."
    if view.laid_down[me]:
        return "Your turn: lay off, swap jokers, then discard a card (click it twice)."
    return "Your turn: lay down if you can, then discard a card (click it twice)."


def round_results(game: Game) -> list[dict[str, Any]]:
    """Each finished round's points per seat and closer (public once the round is over)."""
    return [
        {
            "round": r["round"],
            "points": list(r["points"]),
            "closer": r["closer"],
            "turns": r["turns"],
        }
        for r in game.state.round_history
    ]
