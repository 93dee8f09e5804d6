"""What the two side games' engines share (``fifteen`` and ``knock``, RULES.md Parts 2 and 3).

Both are draw-one, discard-one games over count vectors with the same position fields for the
piles, the hands and the hand's bookkeeping, the same draw and take, and the same two
turn phases (``draw``, then ``play`` once a card is drawn or taken). ``SideGame`` holds those
parts; each game's ``Game`` derives from it and keeps its rules: the deal, what may be announced
or laid, how a hand ends and what it pays, and the wording of its refusals.

Each game is three modules over this one, in the contract engine's shape:

| module | holds |
|---|---|
| ``state.py`` | its action ids, its ``Phase``, its ``Setup`` (a ``SideSetup``: the table size and the options) and its ``State``, each field declared once (``engine.declare``): how it is copied, written to JSON and read back, whether it restarts at each deal, what a seat may not see of it |
| ``state_check.py`` | the loader's checks that relate fields to each other (``CHECKS``) |
| ``game.py`` | the rules: the deal, the legal actions of each phase, their effects, the refusals |

Every game deals each hand, and shuffles its re-formed stocks, with a generator seeded from that
hand's own seed, drawn from the game's seed at creation (``SideGame._start``), so duplicate deals
stay identical in every hand whatever earlier hands did.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from continental_env.cards import NUM_TYPES, card_from_str, card_to_str, format_cards
from continental_env.engine import GameBase, GamePhase, as_seed, state_field
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
    default_seen_of_pile,
    default_to,
    fail,
    fresh_counts_per_seat,
    is_int,
    own_hand_only,
    shown,
    stock_size_only,
)

SetupT = TypeVar("SetupT")
DRAW, TAKE = 0, 1  # the first two action ids of both games (their ``ActionTexts`` words)

# ---------------------------------------------------------------------- options and setup


def check_safety_nets(max_turns_per_hand: Any, max_hands: Any) -> None:
    """ValueError naming ``max_turns_per_hand`` or ``max_hands`` if it is not a positive int."""
    if not is_int(max_turns_per_hand) or max_turns_per_hand < 1:
        raise ValueError(f"max_turns_per_hand={shown(max_turns_per_hand)}: must be a positive int")
    if not is_int(max_hands) or max_hands < 1:
        raise ValueError(f"max_hands={shown(max_hands)}: must be a positive int")


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
        fail(f"'game' is {shown(data.get('game'))}, not {game!r}")
    options = data.get("options", {})
    if not isinstance(options, dict):
        fail("'options' must be a dict")
    unknown = set(options) - set(known)
    if unknown:
        fail(f"unknown options {shown(sorted(unknown))}")
    try:
        return build(data["num_players"], options)
    except ValueError as exc:
        fail(f"options: {exc}")


class SideSetup:
    """What both games' ``Setup`` dataclasses share: their JSON (``game``, ``num_players``,
    ``options``) and its loader. A game sets ``GAME`` (its JSON name) and ``OPTIONS`` (each
    option's name mapped to its ``Setup`` field, in JSON order; an option left out of a state
    takes the field's default)."""

    GAME: ClassVar[str]
    OPTIONS: ClassVar[dict[str, str]]
    num_players: int
    max_hands: int

    @property
    def hands_cap(self) -> int:
        """The most hands this game can last: ``max_hands``, unless the game's options end it
        sooner."""
        return self.max_hands

    def to_dict(self) -> dict[str, Any]:
        options = {name: getattr(self, attr) for name, attr in self.OPTIONS.items()}
        return {"game": self.GAME, "num_players": self.num_players, "options": options}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        """The setup named by a state's ``game``, ``num_players`` and ``options``."""
        return load_setup(data, cls.GAME, tuple(cls.OPTIONS), cls.with_options)

    @classmethod
    def with_options(cls, num_players: Any, options: dict[str, Any]) -> Any:
        """The setup of a table of ``num_players`` with these options by name (the others
        take their defaults); ValueError naming an option it does not know or refuses."""
        unknown = sorted(set(options) - set(cls.OPTIONS))
        if unknown:
            raise ValueError(
                f"unknown options {shown(unknown)}: the {cls.GAME} game takes {list(cls.OPTIONS)}"
            )
        fields = {cls.OPTIONS[name]: value for name, value in options.items()}
        return cls(num_players, **fields)  # type: ignore[call-arg]


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
    return declare(
        CardCounts(), lambda s: [0] * NUM_TYPES, per_round=True, default=default_seen_of_pile
    )


def hand_history_spec(check_record: Callable[[dict[str, Any], str, Any], None]) -> dict[str, Any]:
    """One record per hand played, each checked by ``check_record(record, where, setup)``."""
    return declare(Records(check_record), lambda s: [], default=default_to([]))


def moves_spec() -> dict[str, Any]:
    """Actions applied in the whole game."""
    return declare(Count(), lambda s: 0, default=default_to(0))


def deal_seeds_spec() -> dict[str, Any]:
    """One seed per possible hand (``setup.hands_cap`` of them), drawn from the game's seed at
    creation (hidden)."""
    return declare(
        Seeds(lambda s: s.hands_cap, "one per possible hand"),
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


# ---------------------------------------------------------------------- action texts


class ActionTexts:
    """The text forms of a game's action ids: ``words[i]`` is id ``i``; then, for each of
    ``card_words`` in turn, ``NUM_TYPES`` ids ``"<word> C"``, one per card type C."""

    def __init__(self, words: tuple[str, ...], card_words: tuple[str, ...]) -> None:
        self.words = words
        self.card_words = card_words
        self.bases = {word: len(words) + NUM_TYPES * k for k, word in enumerate(card_words)}
        self.num_actions = len(words) + NUM_TYPES * len(card_words)
        cards = ", ".join(f"'{word} C'" for word in card_words)
        self.expected = f"expected {', '.join(words)}, or {cards}"

    def to_str(self, action: int) -> str:
        """Text form of an action id (each game's table is in its module docstring)."""
        try:
            action = operator.index(action)
        except TypeError:
            raise ValueError(f"action {action!r} is not an integer id") from None
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action id {action!r} is out of range 0..{self.num_actions - 1}")
        words = self.words
        if action < len(words):
            return words[action]
        family, card = divmod(action - len(words), NUM_TYPES)
        return f"{self.card_words[family]} {card_to_str(card)}"

    def from_str(self, text: str) -> int:
        """Action id of a text form (the inverse of ``to_str``)."""
        if not isinstance(text, str):
            raise ValueError(f"action text {text!r} must be a string")
        tokens = text.split()
        head = tokens[0].lower() if tokens else ""
        if len(tokens) == 1 and head in self.words:
            return self.words.index(head)
        if len(tokens) == 2 and head in self.bases:
            return self.bases[head] + card_from_str(tokens[1])
        raise ValueError(f"unknown action {text!r}: {self.expected}")


# ---------------------------------------------------------------------- the engine


class SideGame(GameBase):
    """The common part of ``fifteen.Game`` and ``knock.Game``.

    A subclass sets ``STATE`` and ``SETUP`` (its ``state.py``), ``STATE_CHECKS`` and ``LABEL``
    (its ``state_check.py``), ``DRAW_PHASE``, ``PLAY_PHASE`` and ``GAME_OVER`` (its ``Phase``
    members), ``ACTIONS`` (its ``ActionTexts``, ``discard`` the first card word) and
    ``SETUP_ATTRIBUTES``; it defines ``_deal``, ``_draw_legal_actions``,
    ``_discard_announcements``, ``_perform_own``, ``_end_hand`` (a hand that ends with no
    winner: ``(None, end)``) and ``_refusal``; its ``ACTIONS`` words start with ``draw`` and
    ``take``.
    """

    SETUP: ClassVar[type[SideSetup]]
    ACTIONS: ClassVar[ActionTexts]
    # The game's ``Phase`` members, as plain class attributes: they are read on every step, and
    # reading an enum member through its class costs about as much as the whole ``is_over``.
    DRAW_PHASE: ClassVar[GamePhase]
    PLAY_PHASE: ClassVar[GamePhase]
    GAME_OVER: ClassVar[GamePhase]
    # The game's own setup attributes (its options and what they imply) that ``_attach`` binds
    # on the game, as it binds the shared ones: they never change, and are read often.
    SETUP_ATTRIBUTES: ClassVar[tuple[str, ...]] = ()

    def __init__(self, num_players: int = 4, **options: Any) -> None:
        """An undealt game (``new`` deals one), with the options of the game's ``new`` by name;
        ValueError for an option it does not know or refuses."""
        setup = self.SETUP.with_options(num_players, options)
        self._attach(setup, self.STATE.fresh(setup))

    def _attach(self, setup: Any, state: Any) -> None:
        """Take the setup and position; the options both games have, and the game's
        ``SETUP_ATTRIBUTES``, are also bound here (they never change)."""
        super()._attach(setup, state)
        self.num_players: int = setup.num_players
        self.max_turns_per_hand: int = setup.max_turns_per_hand
        self.max_hands: int = setup.max_hands
        for name in self.SETUP_ATTRIBUTES:
            setattr(self, name, getattr(setup, name))

    @classmethod
    def setup_from_dict(cls, data: dict[str, Any]) -> Any:
        return cls.SETUP.from_dict(data)

    @property
    def num_actions(self) -> int:
        """Size of the action space (the same for every table size)."""
        return self.ACTIONS.num_actions

    def _start(self, seed: Any) -> Any:
        """Deal the first hand of a new game from ``seed`` (``new``); returns the game."""
        master = random.Random(as_seed(seed))
        # One seed per possible hand, drawn up front: a hand's cards never depend on how many
        # shuffles earlier hands used, so duplicate deals stay identical in every hand.
        self.state.deal_seeds = [master.getrandbits(64) for _ in range(self.setup.hands_cap)]
        self._deal()
        return self

    def _deal(self) -> None:
        """Deal the hand ``state.hand_index``: its hands, its stock, the first seat in turn."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the position's fields
    # Each reads and writes ``game.state.<field>``; the fields are declared in each game's
    # ``state.py`` (a game's own fields are listed in its ``Game``).

    phase = state_field("phase", "what the position awaits (``Phase``)", True)
    hand_index = state_field("hand_index", "0-based index of the hand dealt last", True)
    dealer = state_field("dealer", "the seat that dealt the hand", True)
    current = state_field("current", "the seat in turn (or answering, in the knock's buy)", True)
    scores = state_field("scores", "each seat's running total (chips or points)", True)
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

    def action_to_str(self, action: int) -> str:
        """Text form of an action id, e.g. ``"discard 7H"``."""
        return self.ACTIONS.to_str(action)

    def action_from_str(self, text: str) -> int:
        """Action id of a text form (the inverse of ``action_to_str``)."""
        return self.ACTIONS.from_str(text)

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
        """After drawing: ``discard C`` for each card held, then the game's
        ``_discard_announcements``."""
        hand = self.state.hands[self.state.current]
        return self._discard_ids(hand) + self._discard_announcements(hand)

    def _discard_announcements(self, hand: list[int]) -> list[int]:
        """The legal ids that discard a card of ``hand`` and announce with the rest (``out C``,
        ``rummy C`` ...), in id order."""
        raise NotImplementedError

    def _other_legal_actions(self) -> list[int]:
        """The legal ids outside the turn's two phases: none unless the game says otherwise."""
        return []

    def _discard_ids(self, hand: list[int]) -> list[int]:
        """``discard C`` for each card type in the hand."""
        base = len(self.ACTIONS.words)  # ``discard C`` is the first card word
        return [base + c for c in range(NUM_TYPES) if hand[c]]

    # ------------------------------------------------------------------ effects

    def _perform(self, action: int) -> None:
        """``GameBase.apply`` checked the action: ``draw`` and ``take`` are the same in both
        games, the game's ``_perform_own`` does the rest."""
        seat = self.state.current
        if action == DRAW:
            self._do_draw(seat)
        elif action == TAKE:
            self._take(seat)
        else:
            self._perform_own(action, seat)

    def _perform_own(self, action: int, seat: int) -> None:
        """The effect of the game's own actions (all but ``draw`` and ``take``) for ``seat``."""
        raise NotImplementedError

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

    # ------------------------------------------------------------------ explanations

    def _illegal_reason(self, action: int) -> str:
        try:
            text = self.ACTIONS.to_str(action)
        except ValueError as exc:
            return f"illegal action: {exc}"
        phase = self.state.phase
        head = f"illegal action {action} ({text!r}) in phase {phase!r}"
        if phase == self.GAME_OVER:
            return f"{head}: the game is over"
        return f"{head}: {self._refusal(action, text)}"

    def _refusal(self, action: int, text: str) -> str:
        """Why a well-formed action is illegal in a live position (after the phase's name)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        s = self.state
        return (
            f"{self.setup.GAME}.Game(players={self.num_players}, hand={s.hand_index + 1}, "
            f"phase={s.phase}, current={s.current}, scores={s.scores}{self._repr_extra()})"
        )

    def _repr_extra(self) -> str:
        """What a game adds to its ``repr`` (``", pot=..."``)."""
        return ""


__all__ = [
    "ActionTexts",
    "SideGame",
    "SideSetup",
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
