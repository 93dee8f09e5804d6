"""Text rendering of a fifteen-card table for people: hands, up-card, stock, scores, last hand."""

from __future__ import annotations

from continental_env.cards import NUM_TYPES, format_cards
from continental_env.fifteen.game import Game


def render_table(game: Game, seat: int | None = None, names: list[str] | None = None) -> str:
    """The table as text. With ``seat``, other players' hands are hidden (a player's view)."""
    p = game.num_players
    names = names or [f"player_{i}" for i in range(p)]
    target = "no target" if game.target is None else f"target {game.target}"
    header = (
        f"Fifteen-card Continental, hand {min(game.hand_index + 1, game.hands_cap)}  ({target})"
    )
    lines = [header, "=" * len(header)]
    if game.is_over:
        lines.append("Game over. Winner(s): " + ", ".join(names[s] for s in game.winners()))
    else:
        step = "draw or take" if game.phase == "draw" else "discard or go out"
        lines.append(f"{names[game.current]} in turn ({step})")
        top = format_cards(game.discard[-1:]) or "(empty)"
        lines.append(f"Stock: {len(game.stock)} cards   Up-card: {top}   Turn {game.turn}")
    lines.append("")
    width = max(len(n) for n in names)
    for s in range(p):
        marker = ">" if not game.is_over and s == game.current else " "
        tag = "  (dealer)" if s == game.dealer else ""
        if seat is None or s == seat:
            hand = format_cards(game.hand_cards(s))
        else:
            known = [c for c in range(NUM_TYPES) for _ in range(game.known[s][c])]
            hand = f"[{game.hand_size(s)} cards]"
            if known:
                hand += f" known: {format_cards(known)}"
        lines.append(f"{marker} {names[s]:<{width}}  chips {game.scores[s]:>5}  {hand}{tag}")
    if game.hand_history:
        last = game.hand_history[-1]
        lines.append("")
        if last["winner"] is None:
            why = "the stock ran out" if last["end"] == "stock" else "the turn limit"
            lines.append(f"Hand {last['hand']}: no winner ({why}); nobody pays")
        else:
            pay = last["payment"]
            items = ", ".join(f"{k} {v}" for k, v in pay.items() if v and k != "total")
            lines.append(
                f"Hand {last['hand']}: {names[last['winner']]} went out with "
                f"{' | '.join(last['melds'])}; {pay['total']} from each ({items})"
            )
    return "\n".join(lines)
