"""Loading a knock game from its JSON form (``Game.from_dict``): fields, then relations.

Each field's shape is checked by its declaration in ``state.py``; each check here relates fields
to each other, one rule of the game each, and refuses a bad state with one line naming the field
(``malformed knock game state: ...``). ``may_buy`` and ``buy_back_total`` are the buy-back rule
(RULES 3.5), shared with the engine.
"""

from __future__ import annotations

from typing import Any

from continental_env.cards import JOKER, NUM_NATURALS, card_to_str
from continental_env.engine import Check, check_history_recorded, load_state
from continental_env.knock.state import DECKS, HAND_SIZE, Phase, Setup, State
from continental_env.side import check_conserved, check_known, check_pile_seen, check_turn
from continental_env.state_fields import fail, is_int, shown

LABEL = "knock game"
ELIMINATED_OVER = 100
BUY_BACK_OVER = 80
IN_HAND = (Phase.DRAW, Phase.PLAY)


def load(data: Any) -> tuple[Setup, State]:
    """The setup and position of a ``Game.to_dict`` dict, every field and relation checked."""
    return load_state(data, Setup.from_dict, State, CHECKS, LABEL)


def players_in(state: State) -> list[int]:
    """Seats still in the game."""
    return [s for s, ok in enumerate(state.in_game) if ok]


def buy_back_total(state: State, seat: int) -> int:
    """The total a buy-back sets: the second-lowest among the other players still in."""
    others = sorted(state.scores[s] for s in players_in(state) if s != seat)
    return others[1]


def may_buy(state: State, seat: int) -> bool:
    """RULES 3.5: still in, over 80 (and at most 100), at least two others still in, and the
    buy-back lowers the total."""
    if not state.in_game[seat] or not BUY_BACK_OVER < state.scores[seat] <= ELIMINATED_OVER:
        return False
    others = sum(1 for s in players_in(state) if s != seat)
    return others >= 2 and buy_back_total(state, seat) < state.scores[seat]


def check_money(state: State, setup: Setup, given: set[str]) -> None:
    """Every chip is somewhere: the seats' net chips and the pot sum to 0."""
    if sum(state.chips) + state.pot != 0:
        fail(f"chips {state.chips} and pot {state.pot} must sum to 0 (every chip is somewhere)")


def check_players_in(state: State, setup: Setup, given: set[str]) -> None:
    """A running game has two players still in, none over 100; the seat in turn and the dealer
    of a hand are still in."""
    if state.phase == Phase.GAME_OVER:
        return
    alive = players_in(state)
    if len(alive) < 2:
        fail("a running game needs at least two players still in ('in_game')")
    if any(state.scores[s] > ELIMINATED_OVER for s in alive):
        fail("a player still in has a total over 100 ('scores', 'in_game')")
    if state.phase in IN_HAND and not state.in_game[state.current]:
        fail(f"seat {state.current} is to act ('current') but is no longer in the game")
    if state.phase in IN_HAND and not state.in_game[state.dealer]:
        fail(f"the dealer, seat {state.dealer}, is no longer in the game ('dealer')")


def check_pot_finished(state: State, setup: Setup, given: set[str]) -> None:
    """The winners of a finished game took the pot."""
    if state.phase == Phase.GAME_OVER and state.pot:
        fail("the pot of a finished game must be empty ('pot')")


def check_buyers(state: State, setup: Setup, given: set[str]) -> None:
    """In phase ``buy``, the seats still to answer, in seat order, the one in turn first, each
    allowed to buy back; outside it, nobody."""
    buyers = state.buyers
    if not all(is_int(s) and 0 <= s < setup.num_players for s in buyers):
        fail(f"'buyers' must be a list of seats, got {shown(buyers)}")
    if state.phase != Phase.BUY:
        if buyers:
            fail("'buyers' must be empty outside phase 'buy'")
        return
    if not buyers or buyers != sorted(set(buyers)) or buyers[0] != state.current:
        fail("in phase 'buy', 'buyers' lists the seats still to answer, the current first")
    if any(not may_buy(state, s) for s in buyers):
        fail(f"'buyers' {buyers} includes a seat that may not buy back")


def check_hand_sizes(state: State, setup: Setup, given: set[str]) -> None:
    """In a hand each player still in holds 10 cards, the player in turn 11 after drawing."""
    if state.phase not in IN_HAND:
        return
    for seat, hand in enumerate(state.hands):
        want = HAND_SIZE if state.in_game[seat] else 0
        if state.phase == Phase.PLAY and seat == state.current:
            want += 1
        if sum(hand) != want:
            fail(f"hands[{seat}] holds {sum(hand)} cards, expected {want}")


def check_cards(state: State, setup: Setup, given: set[str]) -> None:
    """In a hand every card of the decks is somewhere, exactly once; outside one the hands, the
    stock and the discard pile are empty."""
    if state.phase not in IN_HAND:
        if any(map(sum, state.hands)) or state.stock or state.discard:
            fail(
                f"outside a hand (phase {state.phase!r}) the hands, stock and discard pile are "
                "empty"
            )
        return
    jokers = setup.jokers
    expected = [DECKS] * NUM_NATURALS + [jokers]
    check_conserved(state, expected, f"2 decks and {jokers} {card_to_str(JOKER)}")


def check_seen_discards(state: State, setup: Setup, given: set[str]) -> None:
    """Once recorded (not empty), the discards seen this hand include every card of the discard
    pile (each got there face up)."""
    if state.phase in IN_HAND:
        check_pile_seen(state)


def check_history(state: State, setup: Setup, given: set[str]) -> None:
    """Between hands and at the end, the hand just played is recorded."""
    if state.phase not in IN_HAND and not state.hand_history:
        fail(f"phase {state.phase!r} follows a hand, but 'hand_history' is empty")


def check_history_adds_up(state: State, setup: Setup, given: set[str]) -> None:
    """When given, the hand history holds the hands played and adds up to the totals, the
    buy-backs and the chips (RULES 3.4, 3.5): each hand adds its points to the totals, then each
    of its buy-backs sets the buyer's total; each seat's chips are its ante plus every hand's
    chips. A position built by hand (no moves played, no hand recorded) has totals of its own."""
    history = state.hand_history
    if "hand_history" not in given or not (history or state.moves):
        return
    played = state.hand_index + (state.phase not in IN_HAND)  # a hand just ended is recorded
    if len(history) != played:
        fail(f"'hand_history' holds {len(history)} hands but {played} were played")
    p = setup.num_players
    totals, buys, chips = [0] * p, [0] * p, [-setup.stake] * p
    for record in history:
        for seat in range(p):
            totals[seat] += record["points"][seat]
            chips[seat] += record["chips"][seat]
        for buy in record["buys"]:
            totals[buy["seat"]] = buy["to"]
            buys[buy["seat"]] += 1
    if totals != state.scores:
        fail(
            f"'scores' {shown(state.scores)} do not add up to the hand history's points and "
            f"buy-backs {shown(totals)}"
        )
    if buys != state.buys:
        fail(f"'buys' {shown(state.buys)} do not match the hand history's buy-backs {shown(buys)}")
    if chips != state.chips:
        fail(
            f"'chips' {shown(state.chips)} are not the antes plus the hand history's chips "
            f"{shown(chips)}"
        )


def check_result(state: State, setup: Setup, given: set[str]) -> None:
    """A running game has no result; a finished one names its winners."""
    result = state.result
    if state.phase != Phase.GAME_OVER:
        if result is not None:
            fail("'result' must be null while the game runs")
        return
    winners = result["winners"] if result is not None else None
    p = setup.num_players
    if not winners or not all(is_int(s) and 0 <= s < p for s in winners):
        fail("a finished game needs 'result' with its 'winners' (a list of seats)")


# In order: the first failing check names the problem. (That the seat to act has a legal action
# is checked by ``Game.from_dict`` on the built game.)
CHECKS: tuple[Check, ...] = (
    check_money,
    check_players_in,
    check_pot_finished,
    check_buyers,
    check_turn,
    check_known,
    check_hand_sizes,
    check_cards,
    check_history_recorded("seen_discards"),
    check_seen_discards,
    check_history_recorded("hand_history"),
    check_history,
    check_history_adds_up,
    check_result,
)

__all__ = ["CHECKS", "LABEL", "buy_back_total", "load", "may_buy", "players_in"]
