"""What a seat sees: the page's data built from one seat's view, and the log.

``build_state`` builds everything a page receives through the game's table module
(``continental_web.games.table_of``), from the seat's view alone (``PlayerView`` for the
contract game: ``seat_state``), which holds the seat's own hand, the public table and the cards a
seat is publicly known to hold. Opponents' other cards, the stock order, the deal seeds and the
generator state never reach a response. ``play_logged`` writes the log of recent actions from
public facts only (the action's text form, the discard top before it, the melds it added), so it
cannot name a card drawn from the stock or a closing card placed face down.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from continental_web.contract import LOG_LENGTH, seat_state, second_person
from continental_web.games import table_of

__all__ = ["LOG_LENGTH", "build_state", "play_logged", "seat_state"]


def play_logged(
    game: Any,
    action: int,
    names: Sequence[str],
    log: list[str],
    ends: list[dict[str, Any]] | None = None,
) -> None:
    """Apply ``action`` (ValueError if illegal, game unchanged) and append its description.

    With ``ends``, a round's (or hand's) end appends what was shown when it was counted.
    """
    lines = table_of(game).log_move(game, action, names, ends)
    log.extend(second_person(x) for x in lines)


def build_state(
    game: Any,
    seat: int,
    names: Sequence[str],
    log: Sequence[str],
    config: dict[str, Any],
    seed: int | None,
) -> dict[str, Any]:
    """The seat's view of the live game plus the finished rounds (and the seed once it is over).

    ``config`` is the game's setup; its ``round_ends`` (``play_logged``) are shown as
    ``round_ends``: each finished round's counted hands, points and final table.
    """
    table = table_of(game)
    extra: dict[str, Any] = {
        "config": {k: v for k, v in config.items() if k != "round_ends"},
        "rounds_played": table.round_results(game),
        "round_number": table.round_number(game),
        "game_over": game.is_over,
        "round_ends": list(config.get("round_ends", [])),
    }
    if game.is_over:
        extra["winners"] = game.winners()
        extra["seed"] = None if seed is None else str(seed)
    return table.state(game, seat, names, log, extra)
