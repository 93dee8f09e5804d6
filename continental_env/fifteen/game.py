"""The fifteen-card game engine: one game's state, its legal moves, and their effects.

Rules source: ``RULES.md`` Part 2 (seed 001, "Continental Rummy", the sequence game). The engine
receives actions; it never asks agents for them. Seats are ints. It is pure Python (no gymnasium,
no numpy) and deterministic given its seed: each hand is dealt, and its re-formed stocks are
shuffled, by a generator seeded from that hand's own seed, drawn from the game's seed at
creation, so duplicate deals stay identical in every hand whatever earlier hands did.

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

import operator
import random
from typing import Any

from continental_env.cards import (
    JOKER,
    NUM_NATURALS,
    NUM_TYPES,
    card_from_str,
    card_to_str,
    format_cards,
    suit_of,
)
from continental_env.melds import can_go_out, going_out, going_out_discards

DRAW, TAKE, OUT = 0, 1, 2
DISCARD_BASE = 3
OUT_BASE = DISCARD_BASE + NUM_TYPES  # 56
NUM_ACTIONS = OUT_BASE + NUM_TYPES  # 109
HAND_SIZE = 15
PHASES = ("draw", "play", "game_over")
MIN_PLAYERS, MAX_PLAYERS = 2, 12

# Payments (RULES 2.4), collected by the winner from each opponent.
PAY_WIN = 1
PAY_PER_JOKER = 2
PAY_FIRST_TURN = 7
PAY_DEALT = 10  # first turn, without drawing (instead of PAY_FIRST_TURN)
PAY_NO_JOKER = 10
PAY_ONE_SUIT = 10


def decks_for(num_players: int) -> int:
    """Decks (each with one joker) for a table: 2 up to 5 players, 3 up to 8, 4 up to 12."""
    if num_players <= 5:
        return 2
    return 3 if num_players <= 8 else 4


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


def action_to_str(action: int) -> str:
    """Text form of an action id (the table is in the module docstring)."""
    try:
        action = operator.index(action)
    except TypeError:
        raise ValueError(f"action {action!r} is not an integer id") from None
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id {action!r} is out of range 0..{NUM_ACTIONS - 1}")
    if action < DISCARD_BASE:
        return ("draw", "take", "out")[action]
    if action < OUT_BASE:
        return f"discard {card_to_str(action - DISCARD_BASE)}"
    return f"out {card_to_str(action - OUT_BASE)}"


def action_from_str(text: str) -> int:
    """Action id of a text form (the inverse of ``action_to_str``)."""
    if not isinstance(text, str):
        raise ValueError(f"action text {text!r} must be a string")
    tokens = text.split()
    if len(tokens) == 1 and tokens[0].lower() in ("draw", "take", "out"):
        return ("draw", "take", "out").index(tokens[0].lower())
    if len(tokens) == 2 and tokens[0].lower() in ("discard", "out"):
        card = card_from_str(tokens[1])
        return (DISCARD_BASE if tokens[0].lower() == "discard" else OUT_BASE) + card
    raise ValueError(f"unknown action {text!r}: expected draw, take, out, 'discard C' or 'out C'")


class Game:
    """One game of the fifteen-card game. Build it with ``Game.new``; see the module docstring."""

    num_actions = NUM_ACTIONS

    def __init__(
        self,
        num_players: int = 4,
        target: int | None = 50,
        hands: int | None = None,
        max_turns_per_hand: int = 200,
        max_hands: int = 100,
    ) -> None:
        _check_options(num_players, target, hands, max_turns_per_hand, max_hands)
        self.num_players = num_players
        self.target = target
        self.hand_limit = hands
        self.max_turns_per_hand = max_turns_per_hand
        self.max_hands = max_hands
        self.decks = decks_for(num_players)
        self.rng = random.Random()  # this hand's generator: its deal and re-formed stocks
        self.deal_seeds: list[int] = []
        self.hand_index = 0  # 0-based index of the hand being played (hands played, when over)
        self.dealer = 0
        self.current = 0
        self.phase = "draw"
        self.hands: list[list[int]] = [[0] * NUM_TYPES for _ in range(num_players)]
        self.stock: list[int] = []
        self.discard: list[int] = []
        self.scores = [0] * num_players
        self.turn = 0  # discards in this hand
        self.has_played = [False] * num_players  # completed a turn in this hand
        self.known: list[list[int]] = [[0] * NUM_TYPES for _ in range(num_players)]
        self.seen_discards = [0] * NUM_TYPES
        self.hand_history: list[dict[str, Any]] = []
        self.moves = 0  # actions applied in the whole game
        self._legal: list[int] | None = None

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
        if seed is not None:
            try:
                seed = operator.index(seed)  # any integer kind: int, numpy integers
            except TypeError:
                raise ValueError(f"seed {seed!r} must be an integer or None") from None
        game = cls(num_players, target, hands, max_turns_per_hand, max_hands)
        master = random.Random(seed)
        # One seed per possible hand, drawn up front: a hand's cards never depend on how many
        # shuffles earlier hands used, so duplicate deals stay identical in every hand.
        game.deal_seeds = [master.getrandbits(64) for _ in range(game.hands_cap)]
        game._deal()
        return game

    @property
    def hands_cap(self) -> int:
        """The most hands this game can last."""
        if self.hand_limit is None:
            return self.max_hands
        return min(self.hand_limit, self.max_hands)

    @property
    def max_game_length(self) -> int:
        """A proven upper bound on the actions of one game.

        A hand ends at its ``max_turns_per_hand``-th discard at the latest, and every turn is one
        draw and one discard (or ``out C``), or the single ``out``: at most ``2 *
        max_turns_per_hand`` actions per hand. A game has at most ``hands_cap`` hands.
        """
        return 2 * self.max_turns_per_hand * self.hands_cap

    def _deal(self) -> None:
        p = self.num_players
        self.rng = random.Random(self.deal_seeds[self.hand_index])
        deck = [c for c in range(NUM_NATURALS) for _ in range(self.decks)]
        deck += [JOKER] * self.decks
        self.rng.shuffle(deck)
        self.dealer = self.hand_index % p
        self.hands = [[0] * NUM_TYPES for _ in range(p)]
        for seat in range(p):
            for c in deck[len(deck) - HAND_SIZE :]:
                self.hands[seat][c] += 1
            del deck[len(deck) - HAND_SIZE :]
        self.discard = [deck.pop()]  # the up-card; the top of a pile is its last element
        self.stock = deck
        self.turn = 0
        self.has_played = [False] * p
        self.known = [[0] * NUM_TYPES for _ in range(p)]
        self.seen_discards = [0] * NUM_TYPES
        self.seen_discards[self.discard[-1]] += 1
        self.current = (self.dealer + 1) % p
        self.phase = "draw"
        self._legal = None

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase == "game_over"

    @property
    def actor(self) -> int | None:
        """The seat whose action the state awaits (None when the game is over)."""
        return None if self.phase == "game_over" else self.current

    def hand_cards(self, seat: int) -> list[int]:
        """Sorted card ids in a seat's hand."""
        hand = self.hands[seat]
        return [c for c in range(NUM_TYPES) for _ in range(hand[c])]

    def hand_size(self, seat: int) -> int:
        """Cards in a seat's hand."""
        return sum(self.hands[seat])

    def winners(self) -> list[int]:
        """Seats with the highest total (ties share)."""
        best = max(self.scores)
        return [s for s, v in enumerate(self.scores) if v == best]

    def action_to_str(self, action: int) -> str:
        """Text form of an action id, e.g. ``"out 7H"``."""
        return action_to_str(action)

    def action_from_str(self, text: str) -> int:
        """Action id of a text form (the inverse of ``action_to_str``)."""
        return action_from_str(text)

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[int]:
        """Legal action ids for the seat to act, in increasing order (empty when over).

        A new list each call: the caller may change it without touching the game's cache.
        """
        return self._legal_ids().copy()

    def _legal_ids(self) -> list[int]:
        """The cached legal ids (shared: never hand this list out)."""
        if self._legal is None:
            if self.phase == "draw":
                self._legal = self._draw_legal_actions()
            elif self.phase == "play":
                self._legal = self._play_legal_actions()
            else:
                self._legal = []
        return self._legal

    def _draw_legal_actions(self) -> list[int]:
        legal = [DRAW]
        if self.discard:
            legal.append(TAKE)
        seat = self.current
        if not self.has_played[seat] and can_go_out(self.hands[seat]):
            legal.append(OUT)
        return legal

    def _play_legal_actions(self) -> list[int]:
        hand = self.hands[self.current]
        legal = [DISCARD_BASE + c for c in range(NUM_TYPES) if hand[c]]
        legal += [OUT_BASE + c for c in going_out_discards(hand)]
        return legal

    def is_legal(self, action: int) -> bool:
        """Whether an action id is legal now."""
        return action in self._legal_ids()

    # ------------------------------------------------------------------ applying actions

    def apply(self, action: int) -> None:
        """Apply a legal action; ValueError naming the action and why if it is illegal."""
        try:
            action = operator.index(action)  # ints and numpy integers; 2.5 or "2" are refused
        except TypeError:
            raise ValueError(f"action {action!r} is not an integer id") from None
        if not self.is_legal(action):
            raise ValueError(self._illegal_reason(action))
        self.moves += 1
        self._legal = None
        seat = self.current
        if action == DRAW:
            self._do_draw(seat)
        elif action == TAKE:
            card = self.discard.pop()
            self.hands[seat][card] += 1
            self.known[seat][card] += 1
            self.phase = "play"
        elif action == OUT:
            self._go_out(seat, drew=False)
        elif action < OUT_BASE:
            self._do_discard(seat, action - DISCARD_BASE)
        else:
            card = action - OUT_BASE
            self._remove(seat, card)
            self.discard.append(card)
            self.seen_discards[card] += 1
            self._go_out(seat, drew=True, discarded=card)

    def _do_draw(self, seat: int) -> None:
        if not self.stock and len(self.discard) > 1:
            # RULES 2.3: the up-card stays as the discard pile, the rest becomes the stock.
            top = self.discard.pop()
            self.stock = self.discard
            self.rng.shuffle(self.stock)
            self.discard = [top]
        if not self.stock:
            self._end_hand(None, "stock")
            return
        self.hands[seat][self.stock.pop()] += 1
        self.phase = "play"

    def _remove(self, seat: int, card: int) -> None:
        self.hands[seat][card] -= 1
        if self.known[seat][card]:
            self.known[seat][card] -= 1

    def _do_discard(self, seat: int, card: int) -> None:
        self._remove(seat, card)
        self.discard.append(card)
        self.seen_discards[card] += 1
        self.has_played[seat] = True
        self.turn += 1
        if self.turn >= self.max_turns_per_hand:
            self._end_hand(None, "turn_limit")
            return
        self.current = (seat + 1) % self.num_players
        self.phase = "draw"

    def _go_out(self, seat: int, drew: bool, discarded: int | None = None) -> None:
        cards = self.hand_cards(seat)
        melds = going_out(self.hands[seat])
        assert melds is not None  # legal_actions offered it
        pay = payment(cards, first_turn=not self.has_played[seat], drew=drew)
        self._end_hand(seat, "out", pay, melds, discarded)

    def _end_hand(
        self,
        winner: int | None,
        end: str,
        pay: dict[str, int] | None = None,
        melds: list[list[int]] | None = None,
        discarded: int | None = None,
    ) -> None:
        p = self.num_players
        chips = [0] * p
        if winner is not None and pay is not None:
            for s in range(p):
                chips[s] = pay["total"] * (p - 1) if s == winner else -pay["total"]
        for s in range(p):
            self.scores[s] += chips[s]
        self.hand_history.append(
            {
                "hand": self.hand_index + 1,
                "dealer": self.dealer,
                "winner": winner,
                "end": end,
                "chips": chips,
                "payment": dict(pay) if pay else None,
                "melds": [format_cards(m) for m in melds] if melds else None,
                "discarded": None if discarded is None else card_to_str(discarded),
                "turns": self.turn,
            }
        )
        self.hand_index += 1
        reached = self.target is not None and max(self.scores) >= self.target
        if reached or self.hand_index >= self.hands_cap:
            self.phase = "game_over"
            self._legal = []
            return
        self._deal()

    # ------------------------------------------------------------------ explanations

    def _illegal_reason(self, action: int) -> str:
        try:
            text = action_to_str(action)
        except ValueError as exc:
            return f"illegal action: {exc}"
        head = f"illegal action {action} ({text!r}) in phase {self.phase!r}"
        if self.phase == "game_over":
            return f"{head}: the game is over"
        seat = self.current
        if action in (DRAW, TAKE, OUT) and self.phase != "draw":
            return f"{head}: {text!r} is only legal at the start of a turn, before discarding"
        if action >= DISCARD_BASE and self.phase != "play":
            return f"{head}: draw or take a card first"
        if action == TAKE:
            return f"{head}: the discard pile is empty"
        if action == OUT:
            if self.has_played[seat]:
                return f"{head}: going out without drawing is only allowed on a first turn"
            return f"{head}: seat {seat}'s 15 cards do not go out as 3+3+3+3+3, 4+4+4+3 or 5+4+3+3"
        card = (action - DISCARD_BASE) % NUM_TYPES
        if not self.hands[seat][card]:
            return f"{head}: {card_to_str(card)} is not in seat {seat}'s hand"
        return f"{head}: the other 15 cards do not go out as 3+3+3+3+3, 4+4+4+3 or 5+4+3+3"

    # ------------------------------------------------------------------ copies and JSON

    def clone(self) -> Game:
        """An independent copy (the generator too)."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.rng = random.Random()
        g.rng.setstate(self.rng.getstate())
        g.deal_seeds = list(self.deal_seeds)
        g.hands = [list(h) for h in self.hands]
        g.stock = list(self.stock)
        g.discard = list(self.discard)
        g.scores = list(self.scores)
        g.has_played = list(self.has_played)
        g.known = [list(k) for k in self.known]
        g.seen_discards = list(self.seen_discards)
        g.hand_history = [_copy_record(r) for r in self.hand_history]
        g._legal = list(self._legal) if self._legal is not None else None
        return g

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict that ``from_dict`` restores exactly."""
        version, state, gauss = self.rng.getstate()

        def cards(counts: list[int]) -> list[str]:
            return [card_to_str(c) for c in range(NUM_TYPES) for _ in range(counts[c])]

        return {
            "game": "fifteen",
            "num_players": self.num_players,
            "options": {
                "target": self.target,
                "hands": self.hand_limit,
                "max_turns_per_hand": self.max_turns_per_hand,
                "max_hands": self.max_hands,
            },
            "hand_index": self.hand_index,
            "dealer": self.dealer,
            "current": self.current,
            "phase": self.phase,
            "hands": [cards(h) for h in self.hands],
            "stock": [card_to_str(c) for c in self.stock],
            "discard": [card_to_str(c) for c in self.discard],
            "scores": list(self.scores),
            "turn": self.turn,
            "has_played": list(self.has_played),
            "known": [cards(k) for k in self.known],
            "seen_discards": cards(self.seen_discards),
            "hand_history": [_copy_record(r) for r in self.hand_history],
            "moves": self.moves,
            "deal_seeds": list(self.deal_seeds),
            "rng": [version, list(state), gauss],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """Restore a game from ``to_dict``; one ValueError with the reason if it is malformed."""
        from continental_env.fifteen.state_check import load_state

        return load_state(cls, data)

    def __repr__(self) -> str:
        return (
            f"fifteen.Game(players={self.num_players}, hand={self.hand_index + 1}, "
            f"phase={self.phase}, current={self.current}, scores={self.scores})"
        )


def _copy_record(record: dict[str, Any]) -> dict[str, Any]:
    out = dict(record)
    out["chips"] = list(record["chips"])
    if record.get("payment") is not None:
        out["payment"] = dict(record["payment"])
    if record.get("melds") is not None:
        out["melds"] = list(record["melds"])
    return out


def _check_options(
    num_players: Any, target: Any, hands: Any, max_turns_per_hand: Any, max_hands: Any
) -> None:
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if not is_int(num_players) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players={num_players!r}: the fifteen-card game seats 2..12")
    if target is not None and (not is_int(target) or target < 1):
        raise ValueError(f"target={target!r}: must be a positive int or None")
    if hands is not None and (not is_int(hands) or hands < 1):
        raise ValueError(f"hands={hands!r}: must be a positive int or None")
    if not is_int(max_turns_per_hand) or max_turns_per_hand < 1:
        raise ValueError(f"max_turns_per_hand={max_turns_per_hand!r}: must be a positive int")
    if not is_int(max_hands) or max_hands < 1:
        raise ValueError(f"max_hands={max_hands!r}: must be a positive int")


__all__ = [
    "DISCARD_BASE",
    "DRAW",
    "NUM_ACTIONS",
    "OUT",
    "OUT_BASE",
    "TAKE",
    "Game",
    "action_from_str",
    "action_to_str",
    "decks_for",
    "payment",
]
