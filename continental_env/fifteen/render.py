"""Text rendering of a fifteen-card table for people: hands, up-card, stock, scores, last hand."""

from __future__ import annotations

from continental_env.cards import format_cards
from continental_env.fifteen.game import Game
from continental_env.side import hand_text


def render_table(game: Game, seat: int | None = None, names: list[str] | None = None) -> str:
    """The table as text. With ``seat``, other players' hands are hidden (a player's view)."""
    p = game.num_players
    names = names or [f"player_{i}" for i in range(p)]
    target = "no target" if game.target is None else f"target {game.target}"
    header = (
        f"Fifteen-card Continental, hand {min(game.hand_index + 1, game.hands_cap)}  ({target})"
    )
    lines = [header, "=" * len(header), *_status(game, names), ""]
    width = max(len(n) for n in names)
    for s in range(p):
        marker = ">" if not game.is_over and s == game.current else " "
        tag = "  (dealer)" if s == game.dealer else ""
        hand = hand_text(game, s, seat)
        lines.append(f"{marker} {names[s]:<{width}}  chips {game.scores[s]:>5}  {hand}{tag}")
    if game.hand_history:
        lines += ["", _last_hand(game.hand_history[-1], names)]
    return "\n".join(lines)


def _status(game: Game, names: list[str]) -> list[str]:
    """Who is in turn and what the table shows (or who won)."""
    if game.is_over:
        return ["Game over. Winner(s): " + ", ".join(names[s] for s in game.winners())]
    step = "draw or take" if game.phase == "draw" else "discard or go out"
    top = format_cards(game.discard[-1:]) or "(empty)"
    return [
        f"{names[game.current]} in turn ({step})",
        f"Stock: {len(game.stock)} cards   Up-card: {top}   Turn {game.turn}",
    ]


def _last_hand(last: dict, names: list[str]) -> str:
    """How the last hand ended."""
    if last["winner"] is None:
        why = "the stock ran out" if last["end"] == "stock" else "the turn limit"
        return f"Hand {last['hand']}: no winner ({why}); nobody pays"
    pay = last["payment"]
    items = ", ".join(f"{k} {v}" for k, v in pay.items() if v and k != "total")
    return (
        f"Hand {last['hand']}: {names[last['winner']]} went out with "
        f"{' | '.join(last['melds'])}; {pay['total']} from each ({items})"
    )
