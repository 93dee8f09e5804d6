"""What a seat sees: the page's data built from one seat's ``PlayerView``, and the log.

``seat_state`` builds everything a page receives from the seat's ``PlayerView`` alone, which
holds the seat's own hand, the public table and the cards a seat is publicly known to hold.
Opponents' other cards, the stock order, the deal seeds and the generator state never reach a
response. ``play_logged`` writes the log of recent actions from public facts only (the action's
text form, the discard top before it, the melds it added), so it cannot name a card drawn from
the stock or a closing card placed face down.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.contract.view import PlayerView
from continental_env.cards import NUM_TYPES, card_to_str
from continental_web.contract import (
    after_move,
    contract_text,
    describe,
    hand_groups,
    prompt_text,
    round_end,
    round_results,
    round_snapshot,
    second_person,
)
from continental_web.games import SIDE_TABLES
from continental_web.side import round_number as side_round_number

LOG_LENGTH = 150  # log lines a response carries (the page scrolls them)


def play_logged(
    game: Any,
    action: int,
    names: Sequence[str],
    log: list[str],
    ends: list[dict[str, Any]] | None = None,
) -> None:
    """Apply ``action`` (ValueError if illegal, game unchanged) and append its description.

    With ``ends``, a round's (or hand's) end appends what was shown when it was counted:
    ``round_end``.
    """
    before = len(log)
    side = _side_table(game)
    if side is not None:
        log.extend(side.log_move(game, action, names, ends))
    else:
        line = describe(game, action, names) if game.is_legal(action) else ""
        melds_before, round_before = len(game.state.table), game.state.round_index
        seen = round_snapshot(game, action) if ends is not None else None
        game.apply(action)
        log.append(line)
        log.extend(after_move(game, melds_before, round_before, names))
        if seen is not None and ends is not None and game.state.round_index != round_before:
            ends.append(round_end(game, *seen))
    log[before:] = [second_person(x) for x in log[before:]]


def _side_table(game: Any) -> Any:
    """The page module of a side game's engine, None for the contract game."""
    for module in SIDE_TABLES.values():
        if isinstance(game, module.Game):
            return module
    return None


# ---------------------------------------------------------------------- what a seat sees


def seat_state(
    view: PlayerView,
    names: Sequence[str],
    log: Sequence[str],
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything the page shows for ``view.seat``, built from the view alone."""
    me = view.seat
    trios, runs = view.contract
    p = view.num_players
    seats = []
    for s in range(p):
        known = [card_to_str(c) for c in range(NUM_TYPES) for _ in range(view.known[s][c])]
        seats.append(
            {
                "seat": s,
                "name": names[s],
                "you": s == me,
                "hand_size": view.hand_sizes[s],
                "laid_down": view.laid_down[s],
                "claims": view.claims[s],
                "score": view.scores[s],
                "dealer": s == view.dealer,
                "known": known if s != me else [],
            }
        )
    table = [
        {
            "index": m,
            "owner": meld.owner,
            "owner_name": names[meld.owner],
            "kind": meld.kind,
            "cards": [card_to_str(c) for c in meld.cards],
        }
        for m, meld in enumerate(view.table)
    ]
    actor = (
        None
        if view.phase == "game_over"
        else (view.asked if view.phase == "claim" else view.current)
    )
    legal = [{"id": a, "text": view.action_to_str(a)} for a in view.legal_actions]
    state: dict[str, Any] = {
        "game": "continental",
        "preset": view.rules.name,
        "num_players": p,
        "seat": me,
        "names": list(names),
        "round": view.round,
        "round_number": None,
        "rounds": list(view.rules.rounds),
        "contract": {"trios": trios, "runs": runs, "text": contract_text(trios, runs)},
        "phase": view.phase,
        "current": view.current,
        "asked": view.asked,
        "actor": actor,
        "your_move": actor == me,
        "dealer": view.dealer,
        "turn": view.turn,
        "prompt": prompt_text(view, names),
        "hand": hand_groups(view),
        "hand_size": view.hand_size,
        "table": table,
        "discard_top": card_to_str(view.discard[-1]) if view.discard else None,
        "discard_face_down": False,
        "discard_size": len(view.discard),
        "stock_size": view.stock_size,
        "seats": seats,
        "legal": legal,
        "log": list(log[-LOG_LENGTH:]),
    }
    if extra:
        state.update(extra)
    return state


def build_state(
    game: Any,
    seat: int,
    names: Sequence[str],
    log: Sequence[str],
    config: dict[str, Any],
    seed: int | None,
) -> dict[str, Any]:
    """``seat_state`` of the live game plus the finished rounds (and the seed once it is over).

    ``config`` is the game's setup; its ``round_ends`` (``play_logged``) are shown as
    ``round_ends``: each finished round's counted hands, points and final table.
    """
    ends = list(config.get("round_ends", []))
    config = {k: v for k, v in config.items() if k != "round_ends"}
    side = _side_table(game)
    if side is not None:
        extra: dict[str, Any] = {
            "config": dict(config),
            "rounds_played": side.round_results(game),
            "round_number": side_round_number(game),
            "game_over": game.is_over,
            "round_ends": ends,
        }
        if game.is_over:
            extra["winners"] = game.winners()
            extra["seed"] = None if seed is None else str(seed)
        return side.state(game, seat, names, log, extra)
    view = PlayerView(game, seat)
    extra: dict[str, Any] = {
        "config": dict(config),
        "rounds_played": round_results(game),
        "round_number": game.state.round_index + 1 if not game.is_over else len(game.rules.rounds),
        "game_over": game.is_over,
        "round_ends": ends,
    }
    if game.is_over:
        extra["winners"] = game.winners()
        extra["seed"] = None if seed is None else str(seed)
    state = seat_state(view, names, log, extra)
    if game.is_over and game.state.round_history[-1]["closer"] is not None:
        # The last round was closed: the top of the pile is the closing card, face down.
        state["discard_top"] = None
        state["discard_face_down"] = True
    return state
