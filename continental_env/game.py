"""The contract game engine: one game's state, its legal moves, and their effects.

Rules source: ``RULES.md`` Part 1 (seeds 000, 003, 004). Every variant is a ``RuleConfig`` field.
The engine receives actions; it never asks agents for them. Seats are ints. It is pure Python
(no gymnasium, no numpy) and deterministic given its seed: the only randomness is the shuffle of
each round's deck and of a re-formed stock, drawn from ``self.rng``, a generator seeded per round
from ``deal_seeds`` (drawn from the game's seed at creation).

Specifications of this implementation (where RULES.md leaves a choice to the software):

* ``laydown`` is one action; the engine lays the arrangement that leaves the fewest points in hand
  (``melds.best_contract``), trios first then runs, in that order.
* A round's dealer is seat ``i % players`` for the i-th round played (0-based).
* The claim window opens whenever the player in turn draws from the stock while the discard pile
  has a top card; seats are asked in turn order after the player in turn, the discarder last.
* ``movejoker M N end`` takes the joker at M's high end if that is a joker, else at its low end.
* A contract may hold two trios of the same rank, or two runs of one suit (with several decks
  both are possible and RULES.md does not forbid them).
* A round that hits ``max_turns_per_round`` turns (discards) or runs out of cards ends with no
  closer: every seat scores its hand. This bounds every game's length whatever the agents do.

The action ids and their text forms are ``continental_env.actions``.
"""

from __future__ import annotations

import operator
import random
from dataclasses import replace
from typing import Any

from continental_env.actions import (
    CLAIM,
    CLOSE,
    DISCARD_BASE,
    DRAW,
    LAYDOWN,
    LAYOFF_BASE,
    PASS,
    SLOT_JOKER,
    SLOT_JOKER_HIGH,
    SLOT_JOKER_LOW,
    TAKE,
    ActionLayout,
)
from continental_env.cards import (
    JOKER,
    NUM_RANKS,
    NUM_TYPES,
    card_to_str,
    format_cards,
)
from continental_env.melds import (
    HIGH,
    LOW,
    RUN,
    TRIO,
    Meld,
    best_contract,
    extend_run,
    fitting_cards,
    has_contract,
    lay_off,
    layoff_options,
    run_can_extend,
    swap_targets,
    take_end_joker,
)
from continental_env.rules import (
    PRESETS,
    RuleConfig,
    cards_dealt,
    contract_for_round,
    resolve_rules,
)
from continental_env.state import FIELD_NAMES, Phase, Setup, State, fail
from continental_env.state_check import load, may_claim


class Game:
    """One game of the contract game. Build it with ``Game.new``; see the module docstring."""

    def __init__(self, rules: RuleConfig, num_players: int) -> None:
        """An undealt game (``Game.new`` deals one); ValueError if the rules refuse the table."""
        self.setup = Setup.of(rules, num_players)
        self.state = State.fresh(self.setup)
        self._legal: list[int] | None = None
        self._legal_set: frozenset[int] | None = None
        self._fits: list[int] | None = None

    @classmethod
    def from_state(cls, setup: Setup, state: State) -> Game:
        """A game over this setup and position (the position is used as is, not copied)."""
        game = cls.__new__(cls)
        game.setup = setup
        game.state = state
        game._legal = game._legal_set = game._fits = None
        return game

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        rules: RuleConfig | str = PRESETS["continental"],
        num_players: int = 4,
        seed: int | None = None,
    ) -> Game:
        """A new game with the first round dealt; the same seed deals the same cards."""
        if seed is not None:
            try:
                seed = operator.index(
                    seed
                )  # any integer kind (numpy's too); 1.5 or "7" are refused
            except TypeError:
                raise ValueError(f"seed {seed!r} must be an integer or None") from None
        game = cls(resolve_rules(rules), num_players)
        master = random.Random(seed)
        # One seed per round, drawn up front: a round's cards never depend on how many shuffles
        # earlier rounds used, so duplicate deals stay identical in every round.
        game.state.deal_seeds = [master.getrandbits(64) for _ in game.rules.rounds]
        game._deal()
        return game

    def _deal(self) -> None:
        s = self.state
        p = self.num_players
        s.reset_round(self.setup)
        s.rng = random.Random(s.deal_seeds[s.round_index])
        deck = self.setup.deck(s.round)
        s.rng.shuffle(deck)
        s.dealer = s.round_index % p
        n = cards_dealt(s.round)
        for seat in range(p):
            for c in deck[len(deck) - n :]:
                s.hands[seat][c] += 1
            del deck[len(deck) - n :]
        s.hand_sizes = [n] * p
        s.discard = [deck.pop()]  # the up-card; top of a pile is its last element
        s.stock = deck
        s.seen_discards[s.discard[-1]] += 1
        s.current = (s.dealer + 1) % p
        self._fits = None  # the cached lay-off targets belonged to the last round's table
        self._invalidate()

    def _invalidate(self) -> None:
        self._legal = None
        self._legal_set = None

    # ------------------------------------------------------------------ the static half

    @property
    def rules(self) -> RuleConfig:
        """The rules of this game."""
        return self.setup.rules

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return self.setup.num_players

    @property
    def layout(self) -> ActionLayout:
        """The action ids of this table."""
        return self.setup.layout

    @property
    def points(self) -> tuple[int, ...]:
        """Points of each card type left in a hand."""
        return self.setup.points

    @property
    def num_actions(self) -> int:
        """Size of the action space for this table."""
        return self.setup.num_actions

    @property
    def max_game_length(self) -> int:
        """An upper bound on the number of actions in one game (``Setup.max_game_length``)."""
        return self.setup.max_game_length

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        """Whether the last round has been scored."""
        return self.state.phase == Phase.GAME_OVER

    @property
    def actor(self) -> int | None:
        """The seat whose action the state awaits (the asked seat in a claim window)."""
        if self.state.phase == Phase.GAME_OVER:
            return None
        return self.state.asked if self.state.phase == Phase.CLAIM else self.state.current

    @property
    def contract(self) -> tuple[int, int]:
        """(trios, runs) of the current round."""
        return contract_for_round(self.state.round)

    def hand_cards(self, seat: int) -> list[int]:
        """Sorted card ids in a seat's hand."""
        hand = self.state.hands[seat]
        return [c for c in range(NUM_TYPES) for _ in range(hand[c])]

    def hand_points(self, seat: int) -> int:
        """Points of the cards in a seat's hand."""
        pts = self.points
        return sum(n * pts[c] for c, n in enumerate(self.state.hands[seat]) if n)

    def fitting_counts(self) -> list[int]:
        """Per card type, 1 if it could be laid off on some table meld now, else 0."""
        if self._fits is None:
            fits = [0] * NUM_TYPES
            for meld in self.state.table:
                for c in fitting_cards(meld, self.rules):
                    fits[c] = 1
            self._fits = fits
        return self._fits

    def winners(self) -> list[int]:
        """Seats with the lowest total (ties share)."""
        best = min(self.state.scores)
        return [s for s, v in enumerate(self.state.scores) if v == best]

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[int]:
        """Legal action ids for the seat to act, in increasing order (empty when over).

        A new list each call: the caller may change it without touching the game's cache.
        """
        return self._legal_ids().copy()

    def _legal_ids(self) -> list[int]:
        """The cached legal ids (shared: never hand this list out)."""
        if self._legal is None:
            if self.state.phase == Phase.DRAW:
                legal = [DRAW, TAKE] if self.state.discard else [DRAW]
            elif self.state.phase == Phase.CLAIM:
                legal = [CLAIM, PASS]
            elif self.state.phase == Phase.PLAY:
                legal = self._play_legal_actions()
            else:
                legal = []
            self._legal = legal
        return self._legal

    def is_legal(self, action: int) -> bool:
        """Whether an action id is legal now."""
        if self._legal_set is None:
            self._legal_set = frozenset(self._legal_ids())
        return action in self._legal_set

    def _play_legal_actions(self) -> list[int]:
        rules = self.rules
        seat = self.state.current
        hand = self.state.hands[seat]
        size = self.state.hand_sizes[seat]
        down = self.state.laid_down[seat]
        legal: list[int] = []
        if not down:
            trios, runs = self.contract
            if has_contract(hand, trios, runs, rules):
                legal.append(LAYDOWN)
        owed = self.state.jokers_owed  # discarding and closing wait until these are laid off
        if down and size == 1 and not owed:
            legal.append(CLOSE)
        if size >= 2 and not owed:
            held = [c for c in range(NUM_TYPES) if hand[c]]
            if rules.discard_restriction and not down and self.state.table:
                fits = self.fitting_counts()
                allowed = [c for c in held if not fits[c]]
                held = allowed or held
            legal.extend(DISCARD_BASE + c for c in held)
        if down:
            layout = self.layout
            if size >= 2:
                for m, meld in enumerate(self.state.table):
                    legal.extend(self._layoff_ids(m, meld, hand))
            if rules.joker_rule == "swap":
                for m, meld in enumerate(self.state.table):
                    if JOKER in meld.cards and (meld.kind == RUN or not rules.swap_run_jokers_only):
                        legal.extend(layout.swap(m, c) for c in swap_targets(meld) if hand[c])
            elif not self.state.joker_moved:  # one joker move per turn, so every turn ends
                for m in range(len(self.state.table)):
                    if self._movable_joker_end(m, seat) is None:
                        continue
                    for n, other in enumerate(self.state.table):
                        if n != m and other.kind == RUN:
                            for end in (LOW, HIGH):
                                if run_can_extend(other, end, rules):
                                    legal.append(layout.move(m, n, end))
        if down and rules.swapped_joker_laid_off:
            legal = [a for a in legal if self._keeps_owed_jokers_placeable(a)]
        legal.sort()
        return legal

    def _joker_room(self) -> tuple[bool, int]:
        """(a trio is on the table, free places at the ends of the table's runs)."""
        trio = False
        room = 0
        for meld in self.state.table:
            if meld.kind == TRIO:
                trio = True
            else:
                room += NUM_RANKS - len(meld.cards)
        return trio, room

    def _keeps_owed_jokers_placeable(self, action: int) -> bool:
        """004: after this action, every joker taken by a swap can still be laid off this turn.

        A joker goes on any trio, or on a free end of a run (a run holds at most 13 cards), and
        each lay-off must leave a card in hand; so the jokers owed fit while the hand keeps more
        cards than that and the table has a trio or enough free run places.
        """
        kind, *args = self.layout.decode(action)
        if kind not in ("swap", "layoff"):
            return True
        size = self.state.hand_sizes[self.state.current]
        owed = self.state.jokers_owed
        trio, room = self._joker_room()
        if kind == "swap":
            owed += 1  # the hand keeps its size: a natural out, the joker in
        else:
            slot, m = args
            size -= 1
            if self.state.table[m].kind == RUN:
                room -= 1
            if slot >= SLOT_JOKER:
                owed = max(0, owed - 1)
        return owed == 0 or (size - owed >= 1 and (trio or room >= owed))

    def _layoff_ids(self, m: int, meld: Meld, hand: list[int]) -> list[int]:
        layout = self.layout
        own = meld.owner == self.state.current
        ids = []
        for card, end in layoff_options(meld, hand, self.rules, own):
            if card != JOKER:
                slot = card
            elif meld.kind == TRIO:
                slot = SLOT_JOKER
            else:
                slot = SLOT_JOKER_LOW if end == LOW else SLOT_JOKER_HIGH
            ids.append(layout.layoff(m, slot))
        return ids

    def _movable_joker_end(self, m: int, seat: int) -> str | None:
        """End of own run m whose joker may move (003): 5+ cards, a joker at an end."""
        meld = self.state.table[m]
        if meld.kind != RUN or meld.owner != seat or len(meld.cards) < 5:
            return None
        if meld.cards[-1] == JOKER:
            return HIGH
        if meld.cards[0] == JOKER:
            return LOW
        return None

    # ------------------------------------------------------------------ applying actions

    def apply(self, action: int) -> None:
        """Apply a legal action; ValueError naming the action and why if it is illegal."""
        try:
            action = operator.index(action)  # ints and numpy integers; 2.5 or "2" are refused
        except TypeError:
            raise ValueError(f"action {action!r} is not an integer id") from None
        if not self.is_legal(action):
            raise ValueError(self._illegal_reason(action))
        seat = self.actor
        kind, *args = self.layout.decode(action)
        self.state.moves += 1
        self.state.last_action[seat] = action
        self._invalidate()
        getattr(self, "_do_" + kind)(*args)

    def _do_draw(self) -> None:
        p = self.num_players
        queue = []
        if self.state.discard:
            for k in range(1, p):
                seat = (self.state.current + k) % p
                if may_claim(self.state, self.setup, seat):
                    queue.append(seat)
        if queue:
            self.state.phase = Phase.CLAIM
            self.state.claim_queue = queue
            self.state.asked = queue[0]
        else:
            self._finish_draw()

    def _finish_draw(self) -> None:
        """The player in turn draws from the stock after the claim window."""
        self.state.phase = Phase.PLAY
        self.state.asked = None
        self.state.claim_queue = []
        card = self._pop_stock()
        if card is None:
            self._end_round(closer=None)
            return
        self._add(self.state.current, card)

    def _pop_stock(self) -> int | None:
        """Top stock card, re-forming the stock from the discard pile if needed (RULES 1.7)."""
        if not self.state.stock and len(self.state.discard) > 1:
            top = self.state.discard.pop()
            self.state.stock = self.state.discard
            self.state.rng.shuffle(self.state.stock)
            self.state.discard = [top]
        return self.state.stock.pop() if self.state.stock else None

    def _add(self, seat: int, card: int) -> None:
        self.state.hands[seat][card] += 1
        self.state.hand_sizes[seat] += 1

    def _remove(self, seat: int, card: int) -> None:
        self.state.hands[seat][card] -= 1
        self.state.hand_sizes[seat] -= 1
        known = self.state.known[seat]
        if known[card]:
            known[card] -= 1

    def _do_take(self) -> None:
        card = self.state.discard.pop()
        self._add(self.state.current, card)
        self.state.known[self.state.current][card] += 1
        self.state.phase = Phase.PLAY

    def _do_claim(self) -> None:
        seat = self.state.asked
        card = self.state.discard.pop()
        self._add(seat, card)
        self.state.known[seat][card] += 1
        self.state.claims[seat] += 1
        penalty = self._pop_stock()
        if penalty is not None:
            self._add(seat, penalty)
        self._finish_draw()

    def _do_pass(self) -> None:
        self.state.claim_queue.pop(0)
        if self.state.claim_queue:
            self.state.asked = self.state.claim_queue[0]
        else:
            self._finish_draw()

    def _do_laydown(self) -> None:
        seat = self.state.current
        trios, runs = self.contract
        arrangement = best_contract(self.state.hands[seat], trios, runs, self.rules)
        assert arrangement is not None  # legal_actions checked that it exists
        for kind, cards, start, key in arrangement:
            for c in cards:
                self._remove(seat, c)
            if kind == TRIO:
                self.state.table.append(Meld(seat, TRIO, cards, rank=key))
            else:
                self.state.table.append(Meld(seat, RUN, cards, start=start, suit=key))
        self.state.laid_down[seat] = True
        self.state.laid_down_turn[seat] = self.state.turn
        self._fits = None

    def _do_layoff(self, slot: int, m: int) -> None:
        seat = self.state.current
        self._fits = None
        if slot >= SLOT_JOKER:
            self._remove(seat, JOKER)
            self.state.jokers_owed = max(0, self.state.jokers_owed - 1)
            lay_off(self.state.table[m], JOKER, LOW if slot == SLOT_JOKER_LOW else HIGH, self.rules)
            return
        self._remove(seat, slot)
        lay_off(self.state.table[m], slot, None, self.rules)

    def _do_swap(self, card: int, m: int) -> None:
        seat = self.state.current
        meld = self.state.table[m]
        if meld.kind == TRIO:
            i = meld.cards.index(JOKER)
        else:
            i = next(
                k for k, c in enumerate(meld.cards) if c == JOKER and meld.represented(k) == card
            )
        self._remove(seat, card)
        meld.cards[i] = card
        self._add(seat, JOKER)
        self.state.known[seat][JOKER] += 1
        if self.rules.swapped_joker_laid_off:
            self.state.jokers_owed += 1
        self._fits = None

    def _do_movejoker(self, src: int, dst: int, end: str) -> None:
        take_end_joker(
            self.state.table[src], self._movable_joker_end(src, self.state.current), self.rules
        )
        extend_run(self.state.table[dst], JOKER, end, self.rules)
        self.state.joker_moved = True
        self._fits = None

    def _do_discard(self, card: int) -> None:
        seat = self.state.current
        self._remove(seat, card)
        self.state.discard.append(card)
        self.state.seen_discards[card] += 1
        self.state.turn += 1
        self.state.joker_moved = False
        if self.state.turn >= self.rules.max_turns_per_round:
            self._end_round(closer=None)
            return
        self.state.current = (seat + 1) % self.num_players
        self.state.phase = Phase.DRAW

    def _do_close(self) -> None:
        seat = self.state.current
        card = next(c for c in range(NUM_TYPES) if self.state.hands[seat][c])
        self._remove(seat, card)
        self.state.discard.append(card)  # face down: never claimable, not a seen discard
        self._end_round(closer=seat)

    def _end_round(self, closer: int | None) -> None:
        points = []
        for seat in range(self.num_players):
            if seat == closer:
                one_turn = self.state.laid_down_turn[seat] == self.state.turn
                points.append(self.rules.one_turn_bonus if one_turn else 0)
            else:
                points.append(self.hand_points(seat))
        for seat, pts in enumerate(points):
            self.state.scores[seat] += pts
        self.state.round_history.append(
            {
                "round": self.state.round,
                "points": points,
                "closer": closer,
                "turns": self.state.turn,
            }
        )
        self.state.round_index += 1
        if self.state.round_index >= len(self.rules.rounds):
            self.state.phase = Phase.GAME_OVER
            self.state.asked = None
            self.state.claim_queue = []
            self._invalidate()
            return
        self.state.round = self.rules.rounds[self.state.round_index]
        self._deal()

    # ------------------------------------------------------------------ explanations

    def action_to_str(self, action: int) -> str:
        """Text form of an action id, e.g. ``"layoff 9S 2"``."""
        return self.layout.to_str(action)

    def action_from_str(self, text: str) -> int:
        """Action id of a text form (the inverse of ``action_to_str``)."""
        return self.layout.from_str(text)

    def _illegal_reason(self, action: int) -> str:
        try:
            kind, *args = self.layout.decode(action)
        except ValueError as exc:
            return f"illegal action: {exc}"
        text = self.layout.to_str(action)
        head = f"illegal action {action} ({text!r}) in phase {self.state.phase!r}"
        if self.state.phase == Phase.GAME_OVER:
            return f"{head}: the game is over"
        phase_of = {"draw": "draw", "take": "draw", "claim": "claim", "pass": "claim"}
        want = phase_of.get(kind, "play")
        if want != self.state.phase:
            return f"{head}: '{kind}' is only legal in the {want} phase"
        seat = self.state.current
        hand = self.state.hands[seat]
        down = self.state.laid_down[seat]
        size = self.state.hand_sizes[seat]
        if kind == "laydown":
            if down:
                return f"{head}: seat {seat} has already laid down this round"
            t, r = self.contract
            return f"{head}: the hand holds no {t} trio(s) + {r} run(s) leaving a card in hand"
        if kind in ("discard", "close") and self.state.jokers_owed:
            return (
                f"{head}: seat {seat} must first lay off the joker(s) taken by a swap this turn "
                f"({self.state.jokers_owed} left; {self.rules.name} rules)"
            )
        if kind == "close":
            if not down:
                return f"{head}: seat {seat} has not laid down"
            return f"{head}: closing needs exactly one card in hand, seat {seat} holds {size}"
        if kind in ("discard", "layoff", "swap"):
            card = args[0] if args[0] < SLOT_JOKER else JOKER
            if not hand[card]:
                return f"{head}: {card_to_str(card)} is not in seat {seat}'s hand"
        if kind == "discard":
            if size < 2:
                return f"{head}: the last card cannot be discarded, it must be closed"
            return (
                f"{head}: {card_to_str(args[0])} fits a meld on the table and the "
                f"{self.rules.name} rules forbid discarding it before laying down"
            )
        if kind in ("layoff", "swap", "movejoker"):
            if not down:
                return f"{head}: seat {seat} must lay down before {kind}"
            melds = [args[1]] if kind != "movejoker" else [args[0], args[1]]
            for m in melds:
                if m >= len(self.state.table):
                    return (
                        f"{head}: meld {m} does not exist (the table has {len(self.state.table)})"
                    )
        if kind == "layoff":
            if size < 2:
                return f"{head}: a lay-off must leave one card in hand"
            if self.state.jokers_owed and self._legal_but_for_owed(action):
                return (
                    f"{head}: after it the joker(s) taken by a swap could no longer be laid off "
                    f"this turn ({self.rules.name} rules)"
                )
            return f"{head}: that card does not fit meld {args[1]} ({self._meld_text(args[1])})"
        if kind == "swap":
            if self.rules.joker_rule != "swap":
                return f"{head}: the {self.rules.name} rules shift jokers, they do not swap them"
            meld = self.state.table[args[1]]
            if meld.kind == TRIO and self.rules.swap_run_jokers_only:
                return f"{head}: the {self.rules.name} rules let only a run's jokers be swapped"
            if self.rules.swapped_joker_laid_off and self._legal_but_for_owed(action):
                return (
                    f"{head}: the joker taken could not be laid off this turn, as the "
                    f"{self.rules.name} rules require (it needs a free place on the table and a "
                    "card left in hand)"
                )
            return f"{head}: no joker of meld {args[1]} stands for {card_to_str(args[0])}"
        if kind == "movejoker":
            if self.rules.joker_rule != "shift":
                return f"{head}: only the continental_us rules move jokers between runs"
            if self.state.joker_moved:
                return f"{head}: seat {seat} has already moved a joker this turn (one per turn)"
            return (
                f"{head}: meld {args[0]} must be seat {seat}'s own run of 5+ cards with a joker "
                f"at an end, and meld {args[1]} another run with room at its {args[2]} end"
            )
        return f"{head}: not legal now"

    def _legal_but_for_owed(self, action: int) -> bool:
        """Whether an action would be legal but for 004's laid-off-joker rule (for messages)."""
        saved = self.setup
        self.setup = Setup(replace(saved.rules, swapped_joker_laid_off=False), saved.num_players)
        owed, self.state.jokers_owed = self.state.jokers_owed, 0
        try:
            return action in self._play_legal_actions()
        finally:
            self.setup, self.state.jokers_owed = saved, owed

    def _meld_text(self, m: int) -> str:
        meld = self.state.table[m]
        return f"{meld.kind} {format_cards(meld.cards)}"

    # ------------------------------------------------------------------ copies and JSON

    def clone(self) -> Game:
        """An independent copy (the generator too)."""
        game = Game.from_state(self.setup, self.state.clone())
        game._legal = list(self._legal) if self._legal is not None else None
        return game

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict that ``from_dict`` restores exactly."""
        return {**self.setup.to_dict(), **self.state.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """Restore a game from ``to_dict``; ValueError with the reason if it is malformed."""
        setup, state = load(data)
        game = cls.from_state(setup, state)
        if not game.is_over and not game.legal_actions():
            fail(f"seat {game.actor} has no legal action in phase {state.phase!r}")
        return game

    def __repr__(self) -> str:
        return (
            f"Game({self.rules.name}, players={self.num_players}, round={self.state.round}, "
            f"phase={self.state.phase}, current={self.state.current})"
        )


def _state_field(name: str) -> property:
    def get(game: Game) -> Any:
        return getattr(game.state, name)

    return property(get, doc=f"``state.{name}``: the position's field (read-only; see ``State``).")


# Every position field stays readable as ``game.<field>`` (``game.hands``, ``game.phase``, ...);
# the engine itself reads and writes ``game.state``.
for _name in FIELD_NAMES:
    setattr(Game, _name, _state_field(_name))


__all__ = [
    "CLAIM",
    "CLOSE",
    "DISCARD_BASE",
    "DRAW",
    "LAYDOWN",
    "LAYOFF_BASE",
    "PASS",
    "TAKE",
    "ActionLayout",
    "Game",
    "Phase",
    "Setup",
    "State",
]
