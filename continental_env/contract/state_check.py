"""Loading a game from its JSON form (``Game.from_dict``): fields, then how they relate.

Each field's shape is checked by its declaration in ``state.py``; the checks here relate fields
to each other, one rule of the game each. Every refusal is one ``ValueError`` starting
``malformed game state:``.
"""

from __future__ import annotations

from typing import Any

from continental_env.cards import JOKER, NUM_TYPES, card_to_str
from continental_env.contract.public_log import KINDS
from continental_env.contract.state import Phase, Setup, State
from continental_env.engine import Check, check_history_recorded, load_state
from continental_env.rules import deck_counts
from continental_env.state_fields import fail, shown


def load(data: Any) -> tuple[Setup, State]:
    """The setup and position of a ``Game.to_dict`` dict, every field and relation checked."""
    return load_state(data, Setup.from_dict, State, CHECKS)


def check_round_index(state: State, setup: Setup, given: set[str]) -> None:
    """``round_index`` points at ``round``; past the last round exactly when the game is over."""
    rounds = setup.rules.rounds
    idx = state.round_index
    over = state.phase == Phase.GAME_OVER
    if over != (idx == len(rounds)):
        fail(
            f"'phase' {state.phase.value!r} does not match round_index {idx!r}: the game is over "
            f"exactly when all {len(rounds)} rounds are scored"
        )
    at = idx - 1 if over else idx
    if not 0 <= at < len(rounds) or rounds[at] != state.round:
        fail(f"round_index {idx!r} does not match round {state.round}")


def check_dealer(state: State, setup: Setup, given: set[str]) -> None:
    """In a live round the seat in turn follows the dealer by the turns played (a claim never
    moves the turn): ``current == (dealer + 1 + turn) % players``."""
    if state.phase == Phase.GAME_OVER:
        return
    p = setup.num_players
    expected = (state.dealer + 1 + state.turn) % p
    if state.current != expected:
        fail(
            f"'dealer' {state.dealer} does not fit 'current' {state.current} after {state.turn} "
            f"turns (the seat in turn would be {expected})"
        )


def check_claim_window(state: State, setup: Setup, given: set[str]) -> None:
    """Only a claim window asks a seat; its queue starts with that seat."""
    asked, queue = state.asked, state.claim_queue
    if state.phase != Phase.CLAIM:
        if asked is not None:
            fail(f"'asked' must be null outside the claim phase, got {asked!r}")
        if queue:
            fail(f"claim_queue must be empty outside the claim phase, got {shown(queue)}")
        return
    if asked is None or asked == state.current:
        fail(f"phase 'claim' needs 'asked' to be another seat, got {asked!r}")
    if not queue or queue[0] != asked:
        fail("claim_queue must start with the asked seat")


def check_claim_queue(state: State, setup: Setup, given: set[str]) -> None:
    """Seats still to be asked: distinct, in turn order after the seat in turn, each allowed to
    claim, and a declined card on the pile to claim."""
    if state.phase != Phase.CLAIM:
        return
    p, q = setup.num_players, state.claim_queue
    valid = [isinstance(s, int) and 0 <= s < p for s in q]
    order = [(s - state.current) % p if ok else 0 for s, ok in zip(q, valid, strict=True)]
    if not all(0 < a < b for a, b in zip(order, [*order[1:], p], strict=True)):
        fail(
            f"claim_queue {shown(q)} must list other seats in turn order after seat {state.current}"
        )
    barred = [s for s in q if not may_claim(state, setup, s)]
    if barred:
        fail(f"seats {barred} in claim_queue may not claim (laid down, or at the claim cap)")
    if not state.discard:
        fail("phase 'claim' needs the declined card on top of the discard pile")


def may_claim(state: State, setup: Setup, seat: int) -> bool:
    """Whether ``seat`` may claim a declined discard now (RULES 1.3; the preset's cap)."""
    rules = setup.rules
    if state.laid_down[seat] and not rules.claims_after_laydown:
        return False
    cap = rules.max_claims_per_round
    return cap is None or state.claims[seat] < cap


def check_known(state: State, setup: Setup, given: set[str]) -> None:
    """A seat is known to hold only cards that are in its hand."""
    for seat, (known, hand) in enumerate(zip(state.known, state.hands, strict=True)):
        if any(k > h for k, h in zip(known, hand, strict=True)):
            fail(f"known[{seat}] lists cards that are not in that hand")


def check_history(state: State, setup: Setup, given: set[str]) -> None:
    """When given, the round history holds the rounds played and adds up to the scores (a
    saved game gives it: see ``check_history_recorded``)."""
    if "round_history" not in given:
        return
    history = state.round_history
    if len(history) != state.round_index:
        fail(f"'round_history' holds {len(history)} rounds but {state.round_index} were played")
    p = setup.num_players
    totals = [sum(r["points"][s] for r in history) for s in range(p)]
    if totals != state.scores:
        fail(f"'scores' {state.scores} do not add up to the round history's points {totals}")


def check_jokers(state: State, setup: Setup, given: set[str]) -> None:
    """003's joker move and 004's owed jokers belong to the play step of a seat laid down."""
    play = state.phase == Phase.PLAY
    if state.joker_moved and not (play or state.phase == Phase.GAME_OVER):
        # A close after a joker move ends the game with the flag still set.
        fail(f"'joker_moved' is true only in the play phase, not in {state.phase.value!r}")
    owed = state.jokers_owed
    seat = state.current
    if owed and not (
        setup.rules.swapped_joker_laid_off
        and play
        and state.laid_down[seat]
        and owed <= state.hands[seat][JOKER]
    ):
        fail(
            f"'jokers_owed'={owed} needs rules that make swapped jokers be laid off, the play "
            "phase, the seat in turn laid down and holding that many jokers"
        )


def check_cards_conserved(state: State, setup: Setup, given: set[str]) -> None:
    """Every card of the round's decks is somewhere, exactly once: in a live round and in a
    finished game too (the last round's cards stay where its end left them)."""
    total = [0] * NUM_TYPES
    for hand in state.hands:
        for c in range(NUM_TYPES):
            total[c] += hand[c]
    for c in state.stock + state.discard + [c for m in state.table for c in m.cards]:
        total[c] += 1
    expected = list(deck_counts(setup.rules, setup.num_players, state.round))
    if total != expected:
        wrong = [c for c in range(NUM_TYPES) if total[c] != expected[c]]
        c = wrong[0]
        fail(
            f"cards are not conserved: {len(wrong)} card type(s) off, e.g. "
            f"{card_to_str(c)} appears {total[c]} times, expected {expected[c]}"
        )


def check_hands_hold_cards(state: State, setup: Setup, given: set[str]) -> None:
    """Only a close empties a hand, and a close ends the round at once."""
    if state.phase == Phase.GAME_OVER:
        return
    empty = [s for s, n in enumerate(state.hand_sizes) if n < 1]
    if empty:
        fail(f"seats {empty} hold no cards in a live round")


def check_seen_discards(state: State, setup: Setup, given: set[str]) -> None:
    """Once recorded (not empty), the discards seen this round include every card of a live
    discard pile: each got there face up. (They count discards, so a card discarded again after
    the stock was re-formed counts twice.)"""
    seen = state.seen_discards
    if state.phase == Phase.GAME_OVER or not any(seen):
        return  # a hand-built position may leave it out
    pile = [0] * NUM_TYPES
    for c in state.discard:
        pile[c] += 1
    missing = [c for c in range(NUM_TYPES) if pile[c] > seen[c]]
    if missing:
        fail(f"'seen_discards' lacks {card_to_str(missing[0])}, which lies on the discard pile")


_DISCARD = KINDS.index("discard")


def check_public_log(state: State, setup: Setup, given: set[str]) -> None:
    """The round's log agrees with the discards seen: no card is logged discarded more often
    than it was seen discarded. (The seen discards may hold more: the up-card, and discards
    before a log began, in a position built by hand or saved before the log existed.)"""
    if "public_log" not in given or state.phase == Phase.GAME_OVER:
        return
    discarded = [0] * NUM_TYPES
    for _seat, kind, card in state.public_log.items:
        if kind == _DISCARD:
            discarded[card] += 1
    seen = state.seen_discards
    extra = [c for c in range(NUM_TYPES) if discarded[c] > seen[c]]
    if extra:
        c = extra[0]
        fail(
            f"'public_log' records {discarded[c]} discards of {card_to_str(c)} but "
            f"'seen_discards' holds {seen[c]}"
        )


# In order: the first failing check names the problem. (That the seat to act has a legal action
# is checked by ``Game.from_dict`` on the built game.)
CHECKS: tuple[Check, ...] = (
    check_round_index,
    check_dealer,
    check_claim_window,
    check_claim_queue,
    check_known,
    check_history_recorded("round_history"),
    check_history,
    check_jokers,
    check_cards_conserved,
    check_hands_hold_cards,
    check_history_recorded("seen_discards"),
    check_seen_discards,
    check_public_log,
)

__all__ = ["CHECKS", "load", "may_claim"]
