"""The fifteen-card game engine: one game's state, its legal moves, and their effects.

Rules source: ``RULES.md`` Part 2 (seed 001, "Continental Rummy", the sequence game). A pure
Python engine over ``continental_env.side`` (which says what both side games share: seats are
ints, actions come in, never asked for, every hand dealt from its own seed).

Specifications of this implementation (where the source leaves a choice to the software):

* The dealer of hand ``i`` (0-based) is seat ``i % players``; the seat after the dealer starts.
* ``out`` is offered only when the cards really go out (``melds.can_go_out``), so the seed's
  false declaration and its exposed-hand penalty cannot happen. A hand's arrangement is
  recorded in ``hand_history`` (``melds.going_out``); the payment depends only on the 15 cards.
* A player's "first turn of the hand" is their first turn in it: going out then after drawing
  earns 7, going out then without drawing (``out``) earns 10, never both.
* A drawn-from-empty stock is re-formed from the discard pile under its top card and shuffled;
  if nothing is left to re-form it, or after ``max_turns_per_hand`` discards, the hand ends with
  no winner and nobody pays. This bounds every game (see ``max_game_length``).
* The game ends after the hand in which some total reaches ``target`` (``None``: no target),
  after ``hands`` hands if set, or after ``max_hands`` hands; the highest totals win.

Parameters (``Game.new``):

| parameter | default | meaning |
|---|---|---|
| ``num_players`` | 4 | 2-12; decks: 2-5 players 2 decks + 2 jokers, 6-8: 3 + 3, 9-12: 4 + 4 |
| ``seed`` | None | the deals of every hand |
| ``target`` | 50 | the game ends after the hand in which a total reaches it (None: no target) |
| ``hands`` | None | the game ends after this many hands (``hands=1``: one-hand episodes) |
| ``max_turns_per_hand`` | 200 | safety net: a hand ends with no winner after this many discards |
| ``max_hands`` | 100 | safety net: the game ends after this many hands |

Action ids (the same 109 for every table size):

| ids | text | meaning |
|---|---|---|
| 0 | ``draw`` | draw the top stock card |
| 1 | ``take`` | take the up-card (top of the discard pile) |
| 2 | ``out`` | first turn of the hand, before drawing: go out with the 15 cards dealt |
| 3 .. 55 | ``discard C`` | discard card type C (0..52), end the turn |
| 56 .. 108 | ``out C`` | discard card type C and go out with the other 15 |
"""

from __future__ import annotations

import random

from continental_env.cards import (
    JOKER,
    NUM_NATURALS,
    NUM_TYPES,
    card_to_str,
    format_cards,
    suit_of,
)
from continental_env.engine import state_field
from continental_env.fifteen.state import (
    DISCARD_BASE,
    DRAW,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    OUT,
    OUT_BASE,
    TAKE,
    Phase,
    Setup,
    State,
    decks_for,
)
from continental_env.fifteen.state_check import CHECKS as LOAD_CHECKS
from continental_env.fifteen.state_check import LABEL, target_reached
from continental_env.melds import can_go_out, going_out, going_out_discards
from continental_env.side import ActionTexts, SideGame

PHASES = tuple(Phase)  # the phases, each equal to its JSON string
DRAW_PHASE, PLAY_PHASE, GAME_OVER = Phase

# Payments (RULES 2.4), collected by the winner from each opponent.
PAY_WIN = 1
PAY_PER_JOKER = 2
PAY_FIRST_TURN = 7
PAY_DEALT = 10  # first turn, without drawing (instead of PAY_FIRST_TURN)
PAY_NO_JOKER = 10
PAY_ONE_SUIT = 10


def payment(cards: list[int] | tuple[int, ...], first_turn: bool, drew: bool) -> dict[str, int]:
    """What the winner collects from each opponent for going out with these 15 cards.

    Returns the items (``win``, ``jokers``, ``first_turn``, ``dealt``, ``no_joker``,
    ``one_suit``) and their ``total``.
    """
    jokers = sum(1 for c in cards if c == JOKER)
    suits = {suit_of(c) for c in cards if c != JOKER}
    items = {
        "win": PAY_WIN,
        "jokers": PAY_PER_JOKER * jokers,
        "first_turn": PAY_FIRST_TURN if first_turn and drew else 0,
        "dealt": PAY_DEALT if first_turn and not drew else 0,
        "no_joker": PAY_NO_JOKER if jokers == 0 else 0,
        "one_suit": PAY_ONE_SUIT if len(suits) == 1 else 0,
    }
    items["total"] = sum(items.values())
    return items


ACTIONS = ActionTexts(("draw", "take", "out"), ("discard", "out"))
action_to_str = ACTIONS.to_str  # the table is in the module docstring
action_from_str = ACTIONS.from_str


class Game(SideGame):
    """One game of the fifteen-card game. Build it with ``Game.new``; see the module docstring."""

    STATE, SETUP, ACTIONS = State, Setup, ACTIONS
    DRAW_PHASE, PLAY_PHASE, GAME_OVER = DRAW_PHASE, PLAY_PHASE, GAME_OVER
    STATE_CHECKS, LABEL = LOAD_CHECKS, LABEL  # state_check.py: the loader's relations, the name
    # This game's options (and the decks they imply), bound on the game by ``SideGame._attach``.
    SETUP_ATTRIBUTES = ("target", "hand_limit", "decks")
    target: int | None
    hand_limit: int | None
    decks: int

    # The position's fields are declared in ``state.py``; ``SideGame`` has the ones both games
    # share (the piles, hands, turn, scores, history ...), this game adds one.
    has_played = state_field("has_played", "whether each seat has completed a turn", True)

    @property
    def hands_cap(self) -> int:
        """The most hands this game can last."""
        return self.setup.hands_cap

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        num_players: int = 4,
        seed: int | None = None,
        target: int | None = 50,
        hands: int | None = None,
        max_turns_per_hand: int = 200,
        max_hands: int = 100,
    ) -> Game:
        """A new game with the first hand dealt; the same seed deals the same cards."""
        game = cls(
            num_players,
            target=target,
            hands=hands,
            max_turns_per_hand=max_turns_per_hand,
            max_hands=max_hands,
        )
        return game._start(seed)

    @property
    def max_game_length(self) -> int:
        """A proven upper bound on the actions of one game.

        A hand ends at its ``max_turns_per_hand``-th discard at the latest, and every turn is one
        draw and one discard (or ``out C``), or the single ``out``: at most ``2 *
        max_turns_per_hand`` actions per hand. A game has at most ``hands_cap`` hands.
        """
        return 2 * self.max_turns_per_hand * self.hands_cap

    def _deal(self) -> None:
        s = self.state
        p = self.num_players
        s.reset_round(self.setup)
        s.rng = random.Random(s.deal_seeds[s.hand_index])
        deck = [c for c in range(NUM_NATURALS) for _ in range(self.decks)]
        deck += [JOKER] * self.decks
        s.rng.shuffle(deck)
        s.dealer = s.hand_index % p
        for seat in range(p):
            for c in deck[len(deck) - HAND_SIZE :]:
                s.hands[seat][c] += 1
            del deck[len(deck) - HAND_SIZE :]
        s.discard = [deck.pop()]  # the up-card; the top of a pile is its last element
        s.stock = deck
        s.seen_discards[s.discard[-1]] += 1
        s.current = (s.dealer + 1) % p
        self._invalidate()

    # ------------------------------------------------------------------ queries
    # ``is_over``, ``actor``, ``hand_cards``, ``hand_size`` and the action texts are
    # ``SideGame``'s.

    def winners(self) -> list[int]:
        """Seats with the highest total (ties share)."""
        scores = self.state.scores
        best = max(scores)
        return [s for s, v in enumerate(scores) if v == best]

    # ------------------------------------------------------------------ legal actions

    def _draw_legal_actions(self) -> list[int]:
        s = self.state
        legal = [DRAW]
        if s.discard:
            legal.append(TAKE)
        seat = s.current
        if not s.has_played[seat] and can_go_out(s.hands[seat]):
            legal.append(OUT)
        return legal

    def _discard_announcements(self, hand: list[int]) -> list[int]:
        return [OUT_BASE + c for c in going_out_discards(hand)]

    # ------------------------------------------------------------------ applying actions

    def _perform_own(self, action: int, seat: int) -> None:
        """``out``, ``discard C`` or ``out C`` (``SideGame._perform`` does the draws)."""
        if action == OUT:
            self._go_out(seat, drew=False)
        elif action < OUT_BASE:
            self._do_discard(seat, action - DISCARD_BASE)
        else:
            card = action - OUT_BASE
            self._lay_discard(seat, card)
            self._go_out(seat, drew=True, discarded=card)

    def _do_discard(self, seat: int, card: int) -> None:
        s = self.state
        self._lay_discard(seat, card)
        s.has_played[seat] = True
        s.turn += 1
        if s.turn >= self.max_turns_per_hand:
            self._end_hand(None, "turn_limit")
            return
        s.current = (seat + 1) % self.num_players
        s.phase = DRAW_PHASE

    def _go_out(self, seat: int, drew: bool, discarded: int | None = None) -> None:
        cards = self.hand_cards(seat)
        melds = going_out(self.state.hands[seat])
        assert melds is not None  # legal_actions offered it
        pay = payment(cards, first_turn=not self.state.has_played[seat], drew=drew)
        self._end_hand(seat, "out", pay, melds, discarded)

    def _end_hand(
        self,
        winner: int | None,
        end: str,
        pay: dict[str, int] | None = None,
        melds: list[list[int]] | None = None,
        discarded: int | None = None,
    ) -> None:
        s = self.state
        p = self.num_players
        chips = [0] * p
        if winner is not None and pay is not None:
            for seat in range(p):
                chips[seat] = pay["total"] * (p - 1) if seat == winner else -pay["total"]
        for seat in range(p):
            s.scores[seat] += chips[seat]
        s.hand_history.append(
            {
                "hand": s.hand_index + 1,
                "dealer": s.dealer,
                "winner": winner,
                "end": end,
                "chips": chips,
                "payment": dict(pay) if pay else None,
                "melds": [format_cards(m) for m in melds] if melds else None,
                "discarded": None if discarded is None else card_to_str(discarded),
                "turns": s.turn,
            }
        )
        s.hand_index += 1
        if target_reached(s, self.setup) or s.hand_index >= self.hands_cap:
            s.phase = GAME_OVER
            self._invalidate()
            return
        self._deal()

    # ------------------------------------------------------------------ explanations

    def _refusal(self, action: int, text: str) -> str:
        """Why an action is illegal in a live position (``SideGame._illegal_reason``)."""
        s = self.state
        if action in (DRAW, TAKE, OUT) and s.phase != DRAW_PHASE:
            return f"{text!r} is only legal at the start of a turn, before discarding"
        if action >= DISCARD_BASE and s.phase != PLAY_PHASE:
            return "draw or take a card first"
        seat = s.current
        if action == TAKE:
            return "the discard pile is empty"
        if action == OUT:
            if s.has_played[seat]:
                return "going out without drawing is only allowed on a first turn"
            return f"seat {seat}'s 15 cards do not go out as 3+3+3+3+3, 4+4+4+3 or 5+4+3+3"
        card = (action - DISCARD_BASE) % NUM_TYPES
        if not s.hands[seat][card]:
            return f"{card_to_str(card)} is not in seat {seat}'s hand"
        return "the other 15 cards do not go out as 3+3+3+3+3, 4+4+4+3 or 5+4+3+3"

    # ``clone``, ``to_dict`` and ``from_dict`` are ``GameBase``'s, ``repr`` is ``SideGame``'s.


__all__ = [
    "DISCARD_BASE",
    "DRAW",
    "HAND_SIZE",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NUM_ACTIONS",
    "OUT",
    "OUT_BASE",
    "PHASES",
    "TAKE",
    "Game",
    "Phase",
    "action_from_str",
    "action_to_str",
    "decks_for",
    "payment",
]
