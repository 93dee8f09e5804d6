"""What the two side games' engines share (``fifteen`` and ``knock``, RULES.md Parts 2 and 3).

Both are draw-one, discard-one games over count vectors with the same position fields for the
piles, the hands and the hand's bookkeeping, the same draw and take, and the same two
turn phases (``draw``, then ``play`` once a card is drawn or taken). ``SideGame`` holds those
parts; each game's ``Game`` derives from it and keeps its rules: the deal, what may be announced
or laid, how a hand ends and what it pays, and the wording of its refusals.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from continental_env.cards import NUM_TYPES, card_to_str, format_cards
from continental_env.kernel import GameBase, state_field
from continental_env.state_fields import (
    CardCounts,
    CardCountsPerSeat,
    Cards,
    Count,
    Records,
    Rng,
    Seeds,
    declare,
    default_per_seat,
    default_to,
    fail,
    fresh_counts_per_seat,
    is_int,
    own_hand_only,
    stock_size_only,
)

SetupT = TypeVar("SetupT")

# ---------------------------------------------------------------------- options and setup


def check_safety_nets(max_turns_per_hand: Any, max_hands: Any) -> None:
    """ValueError naming ``max_turns_per_hand`` or ``max_hands`` if it is not a positive int."""
    if not is_int(max_turns_per_hand) or max_turns_per_hand < 1:
        raise ValueError(f"max_turns_per_hand={max_turns_per_hand!r}: must be a positive int")
    if not is_int(max_hands) or max_hands < 1:
        raise ValueError(f"max_hands={max_hands!r}: must be a positive int")


def load_setup(
    data: dict[str, Any],
    game: str,
    known: tuple[str, ...],
    build: Callable[[Any, dict[str, Any]], SetupT],
) -> SetupT:
    """The setup named by a state's ``game``, ``num_players`` and ``options``: ``build(
    num_players, options)`` after the game's name and the option names are checked; every
    refusal is the loader's one-line message."""
    if data.get("game", game) != game:
        fail(f"'game' is {data.get('game')!r}, not {game!r}")
    options = data.get("options", {})
    if not isinstance(options, dict):
        fail("'options' must be a dict")
    unknown = set(options) - set(known)
    if unknown:
        fail(f"unknown options {sorted(unknown)}")
    try:
        return build(data["num_players"], options)
    except ValueError as exc:
        fail(f"options: {exc}")


# ---------------------------------------------------------------------- shared state fields
# The declarations both games' ``State`` use for the same field, as ``field(metadata=X_spec())``
# (each game keeps its own order of fields).


def hands_spec() -> dict[str, Any]:
    """Each seat's hand as counts per card type (a seat sees its own only)."""
    return declare(CardCountsPerSeat(), fresh_counts_per_seat, per_round=True, redact=own_hand_only)


def stock_spec() -> dict[str, Any]:
    """The face-down stock, top card last (hidden: a seat sees only its size)."""
    return declare(Cards(), lambda s: [], per_round=True, redact=stock_size_only)


def discard_spec() -> dict[str, Any]:
    """The face-up discard pile, top card last."""
    return declare(Cards(), lambda s: [], per_round=True)


def turn_spec() -> dict[str, Any]:
    """Discards in this hand."""
    return declare(Count(), lambda s: 0, per_round=True, default=default_to(0))


def known_spec() -> dict[str, Any]:
    """Cards each seat is publicly known to hold (taken from the discard pile)."""
    return declare(
        CardCountsPerSeat(),
        fresh_counts_per_seat,
        per_round=True,
        default=default_per_seat([]),
    )


def seen_discards_spec() -> dict[str, Any]:
    """Counts of every card discarded face up this hand."""
    return declare(CardCounts(), lambda s: [0] * NUM_TYPES, per_round=True, default=default_to([]))


def hand_history_spec(check_record: Callable[[dict[str, Any], str, Any], None]) -> dict[str, Any]:
    """One record per hand played, each checked by ``check_record(record, where, setup)``."""
    return declare(Records(check_record), lambda s: [], default=default_to([]))


def moves_spec() -> dict[str, Any]:
    """Actions applied in the whole game."""
    return declare(Count(), lambda s: 0, default=default_to(0))


def deal_seeds_spec(cap: Callable[[Any], int]) -> dict[str, Any]:
    """One seed per possible hand (``cap(setup)`` of them), drawn from the game's seed at
    creation (hidden)."""
    return declare(
        Seeds(cap, "one per possible hand"),
        lambda s: [],
        redact=lambda seeds, seat, st: [0] * len(seeds),
    )


def rng_spec() -> dict[str, Any]:
    """This hand's generator: its deal and re-formed stocks (hidden)."""
    return declare(Rng(), lambda s: random.Random())


# ---------------------------------------------------------------------- loader checks
# The relations both games' ``state_check.CHECKS`` hold alike (each game keeps its order).


def check_turn(state: Any, setup: Any, given: set[str]) -> None:
    """A hand ends at its ``max_turns_per_hand``-th discard (and the count restarts)."""
    last = setup.max_turns_per_hand - 1
    if state.turn > last:
        fail(f"'turn' must be an int in 0..{last}, got {state.turn}")


def check_known(state: Any, setup: Any, given: set[str]) -> None:
    """A seat is known to hold only cards that are in its hand."""
    for seat, (known, hand) in enumerate(zip(state.known, state.hands, strict=True)):
        if any(k > h for k, h in zip(known, hand, strict=True)):
            fail(f"known[{seat}] lists cards that are not in that hand")


def check_conserved(state: Any, expected: list[int], decks: str) -> None:
    """Every card of the decks is in a hand, the stock or the discard pile, ``expected[c]``
    times; else the first card that is not, and ``decks`` (what the decks hold)."""
    total = [0] * NUM_TYPES
    for hand in state.hands:
        for c in range(NUM_TYPES):
            total[c] += hand[c]
    for c in state.stock + state.discard:
        total[c] += 1
    if total != expected:
        wrong = next(c for c in range(NUM_TYPES) if total[c] != expected[c])
        fail(
            f"cards are not conserved: {card_to_str(wrong)} appears {total[wrong]} times, "
            f"expected {expected[wrong]} ({decks})"
        )


def check_pile_seen(state: Any) -> None:
    """Once recorded (not empty), the discards seen this hand include every card of the discard
    pile (each got there face up)."""
    seen = state.seen_discards
    if not any(seen):
        return  # a hand-built position may leave it out
    pile = [0] * NUM_TYPES
    for c in state.discard:
        pile[c] += 1
    missing = [c for c in range(NUM_TYPES) if pile[c] > seen[c]]
    if missing:
        fail(f"'seen_discards' lacks {card_to_str(missing[0])}, which lies on the discard pile")


# ---------------------------------------------------------------------- text


def hand_text(game: Any, s: int, seat: int | None) -> str:
    """Seat ``s``'s hand as ``seat`` sees it in a text table (every hand when ``seat`` is
    None): its cards, or its size and the cards it is known to hold."""
    if seat is None or s == seat:
        return format_cards(game.hand_cards(s))
    known = [c for c in range(NUM_TYPES) for _ in range(game.known[s][c])]
    hand = f"[{game.hand_size(s)} cards]"
    if known:
        hand += f" known: {format_cards(known)}"
    return hand


# ---------------------------------------------------------------------- the engine


class SideGame(GameBase):
    """The common part of ``fifteen.Game`` and ``knock.Game``.

    A subclass sets ``DRAW_PHASE``, ``PLAY_PHASE`` and ``GAME_OVER`` (its ``Phase`` members),
    and ``DISCARD_BASE`` (the first ``discard C`` id); it defines ``_draw_legal_actions``,
    ``_play_legal_actions`` and ``_end_hand`` (a hand that ends with no winner: ``(None, end)``).
    """

    DRAW_PHASE: ClassVar[Any]
    PLAY_PHASE: ClassVar[Any]
    GAME_OVER: ClassVar[Any]
    DISCARD_BASE: ClassVar[int]

    # ------------------------------------------------------------------ the position's fields
    # Each reads and writes ``game.state.<field>``; the fields are declared in each game's
    # ``state.py`` (a game's own fields are listed in its ``Game``).

    phase = state_field("phase", "what the position awaits (``Phase``)", True)
    hands = state_field("hands", "each seat's hand as counts per card type", True)
    stock = state_field("stock", "the face-down stock, top card last", True)
    discard = state_field("discard", "the face-up discard pile, top card last", True)
    turn = state_field("turn", "discards in this hand", True)
    known = state_field("known", "cards each seat is publicly known to hold", True)
    seen_discards = state_field("seen_discards", "counts of every card discarded face up", True)
    hand_history = state_field("hand_history", "one record per hand played", True)
    moves = state_field("moves", "actions applied in the whole game", True)
    deal_seeds = state_field("deal_seeds", "one deal seed per possible hand", True)
    rng = state_field("rng", "this hand's generator", True)

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.state.phase == self.GAME_OVER

    @property
    def actor(self) -> int | None:
        """The seat whose action the state awaits (None when the game is over)."""
        s = self.state
        return None if s.phase == self.GAME_OVER else s.current

    def hand_cards(self, seat: int) -> list[int]:
        """Sorted card ids in a seat's hand."""
        hand = self.state.hands[seat]
        return [c for c in range(NUM_TYPES) for _ in range(hand[c])]

    def hand_size(self, seat: int) -> int:
        """Cards in a seat's hand."""
        return sum(self.state.hands[seat])

    # ------------------------------------------------------------------ legal actions

    def _compute_legal(self) -> list[int]:
        """The legal ids of the phase (``GameBase`` caches them)."""
        phase = self.state.phase
        if phase == self.DRAW_PHASE:
            return self._draw_legal_actions()
        if phase == self.PLAY_PHASE:
            return self._play_legal_actions()
        return self._other_legal_actions()

    def _draw_legal_actions(self) -> list[int]:
        raise NotImplementedError

    def _play_legal_actions(self) -> list[int]:
        raise NotImplementedError

    def _other_legal_actions(self) -> list[int]:
        """The legal ids outside the turn's two phases: none unless the game says otherwise."""
        return []

    def _discard_ids(self, hand: list[int]) -> list[int]:
        """``discard C`` for each card type in the hand."""
        base = self.DISCARD_BASE
        return [base + c for c in range(NUM_TYPES) if hand[c]]

    # ------------------------------------------------------------------ effects

    def _take(self, seat: int) -> None:
        """``take``: the top discard joins the hand, known to everyone."""
        s = self.state
        card = s.discard.pop()
        s.hands[seat][card] += 1
        s.known[seat][card] += 1
        s.phase = self.PLAY_PHASE

    def _do_draw(self, seat: int) -> None:
        """``draw``: the top stock card, after re-forming an empty stock from the discard pile
        under its top card (RULES 2.3, 3.3); no card to draw ends the hand with no winner."""
        s = self.state
        if not s.stock and len(s.discard) > 1:
            top = s.discard.pop()
            s.stock = s.discard
            s.rng.shuffle(s.stock)
            s.discard = [top]
        if not s.stock:
            self._end_hand(None, "stock")
            return
        s.hands[seat][s.stock.pop()] += 1
        s.phase = self.PLAY_PHASE

    def _end_hand(self, winner: int | None, end: str) -> None:
        """The hand ends (``winner`` None: with no winner, ``end`` says why)."""
        raise NotImplementedError

    def _remove(self, seat: int, card: int) -> None:
        """A card leaves a seat's hand (and its known cards, if it was known)."""
        s = self.state
        s.hands[seat][card] -= 1
        if s.known[seat][card]:
            s.known[seat][card] -= 1

    def _lay_discard(self, seat: int, card: int) -> None:
        """The card goes from the hand onto the discard pile, face up."""
        s = self.state
        self._remove(seat, card)
        s.discard.append(card)
        s.seen_discards[card] += 1


__all__ = [
    "SideGame",
    "check_conserved",
    "check_known",
    "check_pile_seen",
    "check_safety_nets",
    "check_turn",
    "deal_seeds_spec",
    "discard_spec",
    "hand_history_spec",
    "hand_text",
    "hands_spec",
    "known_spec",
    "load_setup",
    "moves_spec",
    "rng_spec",
    "seen_discards_spec",
    "stock_spec",
    "turn_spec",
]
