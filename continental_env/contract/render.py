"""Text rendering of a table for people: hands, melds with owners, discard top, scores, turn."""

from __future__ import annotations

from continental_env.cards import format_cards
from continental_env.contract.game import Game

_SUIT_GLYPH = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def card_text(cards: list[int], glyphs: bool = False) -> str:
    """Cards as text; with ``glyphs`` the suits are drawn as symbols."""
    text = format_cards(cards)
    if glyphs:
        for letter, glyph in _SUIT_GLYPH.items():
            text = text.replace(letter, glyph).replace("JK", "\u2605 ")
    return text


def _status_lines(game: Game, names: list[str]) -> list[str]:
    """Header and whose-turn lines at the top of the table."""
    trios, runs = game.contract
    lines = []
    header = f"Round {game.state.round} of {len(game.rules.rounds)}"
    header += f"  contract: {trios} trio(s) + {runs} run(s)  [{game.rules.name}]"
    lines.append(header)
    lines.append("=" * len(header))
    if game.is_over:
        lines.append("Game over.")
    else:
        actor = game.actor
        where = f"{names[game.state.current]} in turn, {game.state.phase} step"
        if game.state.phase == "claim":
            where += f"; {names[actor]} is asked whether to claim"
        lines.append(where)
        top = format_cards(game.state.discard[-1:]) or "(empty)"
        lines.append(
            f"Stock: {len(game.state.stock)} cards   Discard top: {top}   Turn {game.state.turn}"
        )
    return lines


def _hand_text(game: Game, s: int, seat: int | None) -> str:
    """Player ``s``'s hand as shown to ``seat`` (all hands when ``seat`` is None)."""
    if seat is None or s == seat:
        return format_cards(game.hand_cards(s))
    known = [c for c in range(53) for _ in range(game.state.known[s][c])]
    hand = f"[{game.state.hand_sizes[s]} cards]"
    if known:
        hand += f" known: {format_cards(known)}"
    return hand


def _player_line(game: Game, s: int, seat: int | None, names: list[str], width: int) -> str:
    """One player's row."""
    marker = ">" if not game.is_over and s == game.actor else " "
    status = "down" if game.state.laid_down[s] else "    "
    tags = []
    if s == game.state.dealer:
        tags.append("dealer")
    if game.state.claims[s]:
        tags.append(f"claims {game.state.claims[s]}")
    hand = _hand_text(game, s, seat)
    return (
        f"{marker} {names[s]:<{width}}  score {game.state.scores[s]:>4}  {status}  "
        f"{game.state.hand_sizes[s]:>2} cards  {hand}" + (f"  ({', '.join(tags)})" if tags else "")
    )


def _table_lines(game: Game, names: list[str], width: int) -> list[str]:
    """The melds on the table and the last round's result."""
    lines = []
    if game.state.table:
        lines.append("Table:")
        for m, meld in enumerate(game.state.table):
            lines.append(
                f"  {m:>2}  {meld.kind:<4}  {names[meld.owner]:<{width}}  {format_cards(meld.cards)}"
            )
    else:
        lines.append("Table: (no melds yet)")
    if game.state.round_history:
        last = game.state.round_history[-1]
        closer = "nobody (stock or turn limit)" if last["closer"] is None else names[last["closer"]]
        lines.append("")
        lines.append(f"Last round {last['round']}: closed by {closer}; points {last['points']}")
    return lines


def render_table(game: Game, seat: int | None = None, names: list[str] | None = None) -> str:
    """The table as text. With ``seat``, other players' hands are hidden (a player's view)."""
    p = game.num_players
    names = names or [f"player_{i}" for i in range(p)]
    lines = _status_lines(game, names)
    lines.append("")
    width = max(len(n) for n in names)
    for s in range(p):
        lines.append(_player_line(game, s, seat, names, width))
    lines.append("")
    lines.extend(_table_lines(game, names, width))
    return "\n".join(lines)
