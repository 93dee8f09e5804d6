"""The contract game's part of a text agent's prompt (``agents.text.prompt.GamePrompt``): the round
and its contract, who has laid down, the claims made, the melds on the table (numbered as the
actions ``layoff C m`` and ``swap C m`` name them) and the round's public log, all read from the
seat's ``PlayerView``."""

from __future__ import annotations

from typing import Any

from agents.text.prompt import GamePrompt, per_seat, seat_name
from continental_env.cards import card_to_str, format_cards
from continental_env.contract.public_log import KINDS, NO_CARD

INTRO = (
    "Continental, the contract rummy game. Each round has a contract of trios (3 or more cards "
    "of one rank) and runs (cards of one suit in sequence) that a player must lay down "
    "('laydown') before laying off cards on the table's melds and going out; jokers (JK) are "
    "wild. A player may take the top discard instead of drawing from the stock; a discard "
    "declined by the player to act may be claimed by others, with a penalty card. When a "
    "player goes out, the cards left in the other hands count as points against them: the "
    "lowest total after the last round wins."
)

# How a public-log entry reads: the card is the one shown (for ``draw`` and ``pass``, the
# discard that was declined).
_SAID = {
    "draw": "drew from the stock",
    "take": "took {card} from the discard pile",
    "claim": "claimed {card}",
    "pass": "did not claim {card}",
    "laydown": "laid down the contract",
    "close": "went out",
    "discard": "discarded {card}",
    "layoff": "laid off {card}",
    "swap": "swapped {card} in for a joker",
    "movejoker": "moved a joker",
}


def contract_words(contract: tuple[int, int]) -> str:
    """``2 trios``, ``1 trio + 1 run``."""
    trios, runs = contract
    parts = [f"{trios} trio{'s' * (trios != 1)}"] * bool(trios)
    parts += [f"{runs} run{'s' * (runs != 1)}"] * bool(runs)
    return " + ".join(parts)


def log_line(view: Any, seat: int, kind: int, card: int) -> str:
    """One entry of the round's public log in words."""
    name = KINDS[kind]
    said = _SAID[name].format(card=card_to_str(card) if card != NO_CARD else "a card")
    if name == "draw" and card != NO_CARD:
        said += f" (declining {card_to_str(card)})"
    return f"{seat_name(view, seat)} {said}"


def describe(view: Any) -> list[str]:
    """The contract game's public lines of a seat's view."""
    rules = view.rules
    rounds = list(rules.rounds)
    index = (
        f" ({rounds.index(view.round) + 1} of {len(rounds)} rounds)" if view.round in rounds else ""
    )
    lines = [
        f"Round {view.round}{index}: contract {contract_words(view.contract)}; a run needs "
        f"{rules.min_run} or more cards.",
        f"Laid down: {per_seat(view, ['yes' if d else 'no' for d in view.laid_down])}",
    ]
    cap = rules.max_claims_per_round
    limit = "" if cap is None else f", at most {cap} each"
    lines.append(f"Claims this round{limit}: {per_seat(view, view.claims)}")
    if view.phase == "claim":
        lines.append(
            f"{seat_name(view, view.asked)} is asked whether to claim the declined discard."
        )
    if view.table:
        lines.append("Melds on the table (m: owner, kind, cards):")
        lines += [
            f"  {m}: {seat_name(view, meld.owner)}, {meld.kind}, {format_cards(meld.cards)}"
            for m, meld in enumerate(view.table)
        ]
    else:
        lines.append("Melds on the table: none")
    # A log the view could not key to this round (``PlayerView``) is an earlier round's.
    log = view.public_log
    entries = log.items if log.key is not None else []
    lines.append("This round so far:" if entries else "This round so far: nothing yet")
    lines += [f"  {log_line(view, *entry)}" for entry in entries]
    return lines


PROMPT = GamePrompt(intro=INTRO, scores="points, lower is better", describe=describe)

__all__ = ["PROMPT", "describe"]
