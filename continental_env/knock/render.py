"""Text rendering of a knock table for people: hands, discard, stock, points, chips, last hand."""

from __future__ import annotations

from typing import Any

from continental_env.cards import format_cards
from continental_env.knock.game import Game, buy_cost
from continental_env.side import hand_text

STEPS = {"draw": "draw, take or announce", "play": "discard or announce", "buy": "buy or pass"}


def describe_hand_end(record: dict[str, Any], names: list[str]) -> list[str]:
    """Lines telling how a hand ended (``hand_history`` record)."""
    who = None if record["announcer"] is None else names[record["announcer"]]
    end = record["end"]
    if who is None:
        why = "the stock ran out" if end == "stock" else "the turn limit"
        lines = [f"Hand {record['hand']}: no announcer ({why}); everyone scores their deadwood"]
    elif end == "continental":
        lines = [
            f"Hand {record['hand']}: {who} calls CONTINENTAL with {' | '.join(record['lays'])}"
        ]
    else:
        lays = " | ".join(record["lays"]) or "no lays"
        lines = [f"Hand {record['hand']}: {who} announces {end} ({lays})"]
        payer = names[record["pot_payer"]]
        lines.append(
            f"  bonus {record['bonus']} from each other player; {payer} pays it to the pot"
        )
    if end != "continental":
        points = ", ".join(
            f"{names[s]} {record['points'][s]:+d} (deadwood {record['deadwood'][s]})"
            for s in record["players"]
        )
        lines.append(f"  points: {points}")
    for s in record["eliminated"]:
        lines.append(f"  {names[s]} is over 100 and out")
    for b in record["buys"]:
        lines.append(f"  {names[b['seat']]} buys back for {b['cost']}: {b['from']} -> {b['to']}")
    return lines


def render_table(game: Game, seat: int | None = None, names: list[str] | None = None) -> str:
    """The table as text. With ``seat``, other players' hands are hidden (a player's view)."""
    p = game.num_players
    names = names or [f"player_{i}" for i in range(p)]
    header = f"Knock Continental, hand {game.hand_index + 1}  (stake {game.stake}, pot {game.pot})"
    lines = [header, "=" * len(header), *_status(game, names), ""]
    width = max(len(n) for n in names)
    for s in range(p):
        marker = ">" if not game.is_over and s == game.current else " "
        tag = "  (dealer)" if s == game.dealer and game.in_game[s] else ""
        lines.append(
            f"{marker} {names[s]:<{width}}  points {game.scores[s]:>4}  chips {game.chips[s]:>5}"
            f"  {_hand_text(game, s, seat)}{tag}"
        )
    if game.hand_history:
        lines.append("")
        lines += describe_hand_end(game.hand_history[-1], names)
    return "\n".join(lines)


def _status(game: Game, names: list[str]) -> list[str]:
    """Who is in turn and what the table shows (or how the game ended)."""
    if game.is_over:
        result = game.result or {}
        won = " and ".join(names[s] for s in game.winners())
        return [f"Game over ({result.get('end')}): {won} win(s) the pot of {result.get('pot')}"]
    lines = [f"{names[game.current]} in turn ({STEPS[game.phase]})"]
    if game.phase == "buy":
        s = game.current
        lines.append(
            f"Buy back to {game.buy_back_total(s)} points for "
            f"{buy_cost(game.stake, game.buys[s])} chips?"
        )
    else:
        top = format_cards(game.discard[-1:]) or "(empty)"
        lines.append(f"Stock: {len(game.stock)} cards   Discard: {top}   Turn {game.turn}")
    return lines


def _hand_text(game: Game, s: int, seat: int | None) -> str:
    """Seat ``s``'s hand as ``seat`` sees it (every hand when ``seat`` is None)."""
    if not game.in_game[s]:
        return "out"
    return hand_text(game, s, seat)
