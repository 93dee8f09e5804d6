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
from continental_env.knock.game import MAX_PLAYERS, MIN_PLAYERS, Game
from continental_env.knock.render import describe_hand_end
from continental_web import side

GOAL = "knock with deadwood 5 or less, or rummy / color / continental; over 100 points is out"
PLAYERS = {"min_players": MIN_PLAYERS, "max_players": MAX_PLAYERS}
ANNOUNCEMENTS = ("knock", "rummy", "color", "continental")
STEPS = {"draw": "to draw", "play": "to discard", "buy": "to buy back or pass"}
PLAY_PROMPT = "Your turn: discard a card (click it twice), or discard one and announce."


TITLE = "knock game"
FIELDS: tuple[str, ...] = ()  # the start page's fields this game takes: none
MODEL_ABOUT = side.MODEL_ABOUT
# The engine options a record may carry: name: (low, high, may be None).
RECORD_OPTIONS = {"stake": (1, 1000, False), **side.SAFETY_OPTIONS}


def start_options(
    preset: Any, rounds: Any, hands: Any, players: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The engine's options (the default stake, 50, and safety caps) and the game's setup;
    WebError 400 for a field this game does not take."""
    from continental_web.errors import WebError

    if hands is not None or rounds is not None:
        raise WebError(400, "the knock game plays until one player is left: no rounds or hands")
    side.check_players(TITLE, PLAYERS, players)
    return {}, {"preset": "knock"}


def replay_options(record: dict[str, Any]) -> dict[str, Any]:
    """The engine options a record asks for, each checked (``RECORD_OPTIONS``)."""
    return side.checked_options(RECORD_OPTIONS, record.get("options"))


record_fields = side.record_fields
round_number = side.round_number


options = side.engine_options  # the engine's options as ``Game.new`` takes them (records)


def _own_move(who: str, text: str) -> str:
    """An announcement or a buy-back answer in words (``describe_move`` has the others)."""
    if text == "buy":
        return f"{who} {side.verb(who, 'buy', 'buys')} back"
    if text == "pass":
        return f"{who} {side.verb(who, 'do', 'does')} not buy back"
    if text in ANNOUNCEMENTS:
        return f"{who} {side.verb(who, 'announce', 'announces')} {text}"
    kind, card = text.split()
    discards, announces = (
        side.verb(who, "discard", "discards"),
        side.verb(who, "announce", "announces"),
    )
    return f"{who} {discards} {card} and {announces} {kind}"


def describe(game: Game, action: int, names: Sequence[str]) -> str:
    """The move about to be played, in words, from public facts only."""
    return side.describe_move(game, action, names, _own_move)


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
                "verb": f"announced {r['end']}",
            }
        )
        totals = [t - p for t, p in zip(totals, r["points"], strict=True)]
    out.reverse()
    return out


def _prompt(view: KnockView, names: Sequence[str]) -> str:
    if view.phase == "buy" and view.current == view.seat:
        return f"Buy back to {view.buy_back_total} points for {view.buy_cost} chips, or pass?"
    calls = [w for w in side.legal_words(view) if w in ANNOUNCEMENTS]
    note = f" You may announce: {', '.join(calls)}." if calls else ""
    return side.turn_prompt(view, names, STEPS, note, PLAY_PROMPT)


def state(
    game: Game, seat: int, names: Sequence[str], log: Sequence[str], extra: dict[str, Any]
) -> dict[str, Any]:
    """Everything the page shows for ``seat``, built from its ``KnockView``."""
    view = KnockView(game, seat)
    seats = []
    for s in range(view.num_players):
        name = names[s] if view.in_game[s] else f"{names[s]} (out)"
        seats.append(
            {**side.seat_row(view, s, name), "chips": view.chips[s], "in_game": view.in_game[s]}
        )
    chips = ", ".join(f"{names[s]} {view.chips[s]:+d}" for s in range(view.num_players))
    own = {
        "title": "Knock game",
        "round_text": f"hand {view.hand_index + 1} · stake {view.stake} · pot {view.pot}",
        "goal_text": f"Chips: {chips}",
        "no_melds_text": "No melds are laid in this game: a hand ends when someone knocks "
        "or announces; the announcer's lays are shown here.",
        "score_label": "pts",
        "nobody_text": "Nobody announced (turn limit)",
        "not_shown_text": "out of the game",
        "higher_wins": False,
        "pot": view.pot,
        "stake": view.stake,
    }
    prompt = _prompt(view, names)
    return side.side_state("knock", view, names, log, GOAL, prompt, seats, own, extra)


def first_line(game: Game, names: Sequence[str]) -> str:
    """The log's first line: the first deal."""
    return dealt_line(game, names)


PAGE = side.SidePage(describe, describe_hand_end, hand_end, dealt_line)
log_move = PAGE.log_move  # apply a move; the log lines it makes
