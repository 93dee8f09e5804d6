"""Loading a fifteen-card game from its JSON form (``Game.from_dict``): fields, then relations.

Each field's shape is checked by its declaration in ``state.py``; each check here relates fields
to each other, one rule of the game each, and refuses a bad state with one line naming the field
(``malformed fifteen-card game state: ...``).
"""

from __future__ import annotations

from typing import Any

from continental_env.cards import JOKER, NUM_TYPES, card_to_str
from continental_env.engine import Check, check_history_recorded, load_state
from continental_env.fifteen.state import HAND_SIZE, Phase, Setup, State
from continental_env.side import check_conserved, check_known, check_pile_seen
from continental_env.state_fields import fail

LABEL = "fifteen-card game"


def load(data: Any) -> tuple[Setup, State]:
    """The setup and position of a ``Game.to_dict`` dict, every field and relation checked."""
    return load_state(data, Setup.from_dict, State, CHECKS, LABEL)


def target_reached(state: State, setup: Setup) -> bool:
    """Whether some total has reached the target (the game ends after such a hand)."""
    return setup.target is not None and max(state.scores) >= setup.target


def check_hand_index(state: State, setup: Setup, given: set[str]) -> None:
    """A live game plays one of its possible hands; a finished one has played at least one."""
    over = state.phase == Phase.GAME_OVER
    first, last = (1, setup.hands_cap) if over else (0, setup.hands_cap - 1)
    if not first <= state.hand_index <= last:
        fail(f"hand_index {state.hand_index!r} must be {first}..{last} in phase {state.phase!r}")


def check_game_over(state: State, setup: Setup, given: set[str]) -> None:
    """The game is over exactly when its last hand is played or a total reached the target."""
    ended = target_reached(state, setup) or state.hand_index >= setup.hands_cap
    if ended != (state.phase == Phase.GAME_OVER):
        why = "a total reached the target" if target_reached(state, setup) else "hands remain"
        fail(f"'phase' {state.phase.value!r} does not fit the scores and hand_index ({why})")


def check_dealer(state: State, setup: Setup, given: set[str]) -> None:
    """Seat ``i % players`` deals the i-th hand."""
    if state.phase == Phase.GAME_OVER:
        return
    idx, p = state.hand_index, setup.num_players
    if state.dealer != idx % p:
        fail(f"dealer {state.dealer} is not the dealer of hand {idx + 1} (seat {idx % p})")


def check_turn(state: State, setup: Setup, given: set[str]) -> None:
    """A live hand has had fewer discards than the limit; a hand ended by it has had exactly that
    many (unlike knock, whose finished hands are dealt anew or emptied)."""
    limit = setup.max_turns_per_hand
    last = limit if state.phase == Phase.GAME_OVER else limit - 1
    if state.turn > last:
        fail(f"'turn' must be an int in 0..{last}, got {state.turn}")


def check_scores(state: State, setup: Setup, given: set[str]) -> None:
    """Every payment is zero-sum."""
    if sum(state.scores) != 0:
        fail(f"scores {state.scores} must sum to 0 (every payment is zero-sum)")


def check_history(state: State, setup: Setup, given: set[str]) -> None:
    """When given, the history holds one record per hand played and adds up to the scores."""
    if "hand_history" not in given:
        return
    history = state.hand_history
    played = state.hand_index
    if len(history) != played:
        fail(f"'hand_history' holds {len(history)} hands but {played} were played")
    totals = [sum(r["chips"][s] for r in history) for s in range(setup.num_players)]
    if totals != state.scores:
        fail(f"'scores' {state.scores} do not add up to the hand history's chips {totals}")


def check_hand_sizes(state: State, setup: Setup, given: set[str]) -> None:
    """In a live hand each seat holds 15 cards, the player in turn 16 after drawing."""
    if state.phase == Phase.GAME_OVER:
        return
    for seat, hand in enumerate(state.hands):
        want = HAND_SIZE + (state.phase == Phase.PLAY and seat == state.current)
        if sum(hand) != want:
            fail(f"hands[{seat}] holds {sum(hand)} cards, expected {want}")


def check_cards_conserved(state: State, setup: Setup, given: set[str]) -> None:
    """Every card of the decks is somewhere, exactly once: in a live hand and in a finished
    game too (the last hand's cards stay where its end left them)."""
    decks = setup.decks
    check_conserved(state, [decks] * NUM_TYPES, f"{decks} decks and {decks} {card_to_str(JOKER)}")


def check_seen_discards(state: State, setup: Setup, given: set[str]) -> None:
    """Once recorded (not empty), the discards seen this hand include every card of a live
    discard pile (each got there face up; a card discarded again after the stock was re-formed
    counts twice)."""
    if state.phase != Phase.GAME_OVER:
        check_pile_seen(state)


# In order: the first failing check names the problem. (That the seat to act has a legal action
# is checked by ``Game.from_dict`` on the built game.)
CHECKS: tuple[Check, ...] = (
    check_hand_index,
    check_dealer,
    check_scores,
    check_turn,
    check_known,
    check_hand_sizes,
    check_cards_conserved,
    check_history_recorded("hand_history"),
    check_history,
    check_game_over,
    check_history_recorded("seen_discards"),
    check_seen_discards,
)

__all__ = ["CHECKS", "LABEL", "load", "target_reached"]
