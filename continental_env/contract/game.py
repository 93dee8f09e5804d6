"""The contract game engine: one game's position, its legal moves, and their effects.

Rules source: ``RULES.md`` Part 1 (seeds 000, 003, 004). Every variant is a ``RuleConfig`` field.
The engine receives actions; it never asks agents for them. Seats are ints. It is pure Python
(no gymnasium, no numpy) and deterministic given its seed: the only randomness is the shuffle of
each round's deck and of a re-formed stock, drawn from ``state.rng``, a generator seeded per
round from ``state.deal_seeds`` (drawn from the game's seed at creation).

A ``Game`` is a ``Setup`` (rules, table size, action layout: fixed) and a ``State`` (the
position), both in ``state.py``, on the shared engine base (``continental_env.engine``: copies, JSON,
loading, the legal-action cache and the apply skeleton). ``game.hands``, ``game.phase`` and every
other position field are read-only properties of ``Game`` reading ``game.state`` (listed in the
class). The action ids and their text forms are ``actions.py``. The round's public actions are
kept as ``state.public_log`` (``public_log.PublicLog``: emptied at each deal, recorded in
``apply`` after the legality check and before the effect; public information, read by the
``continental_v1`` observation's features).

Reading order: legal actions (one helper per action kind in ``legal.py``, as OpenSpiel's
``DrawLegalActions``), then ``CHECKS``, the conditions each kind must meet (the same checks decide legality and explain
a refusal), then the effects, one ``_do_<kind>`` each, dispatched through ``EFFECTS``.

Specifications of this implementation (where RULES.md leaves a choice to the software):

* ``laydown`` is one action; the engine lays the arrangement a good player would (RULES 1.4):
  fewest cards, then fewest points, left after the best lay-offs this turn, then fewest points
  right after the lay-down (``melds.best_laydown``), trios first then runs, in that order. The
  choice is exact for hands of up to ``melds.LAYDOWN_EXACT_CARDS`` (20) cards, which covers every
  lay-down of the heuristic bots; the 21-70-card hands that random claiming builds keep the
  fewest points right after the lay-down (their search space runs to millions of arrangements).
* A round's dealer is seat ``i % players`` for the i-th round played (0-based).
* The claim window opens whenever the player in turn draws from the stock while the discard pile
  has a top card; seats are asked in turn order after the player in turn, the discarder last.
* ``movejoker M N end`` takes the joker at M's high end if that is a joker, else at its low end.
* A contract may hold two trios of the same rank, or two runs of one suit (with several decks
  both are possible and RULES.md does not forbid them).
* A round that hits ``max_turns_per_round`` turns (discards) or runs out of cards ends with no
  closer: every seat scores its hand. This bounds every game's length whatever the agents do.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from continental_env import kernels
from continental_env.cards import JOKER, NUM_RANKS, NUM_TYPES, format_cards
from continental_env.contract.action_checks import CHECKS
from continental_env.contract.actions import (
    CLAIM,
    CLOSE,
    DISCARD_BASE,
    DRAW,
    LAYDOWN,
    LAYOFF_BASE,
    PASS,
    SLOT_JOKER,
    SLOT_JOKER_LOW,
    TAKE,
    ActionLayout,
)
from continental_env.contract.legal import (
    CANDIDATES,
    KINDS_OF_PHASE,
    PHASE_OF_KIND,
    compute_legal,
    layoff_ids_on,
    movable_joker_end,
    movejoker_ids,
)
from continental_env.contract.public_log import NO_CARD, PublicLog
from continental_env.contract.state import Phase, Setup, State
from continental_env.contract.state_check import CHECKS as LOAD_CHECKS
from continental_env.contract.state_check import may_claim
from continental_env.engine import GameBase, as_seed, state_field
from continental_env.melds import (
    HIGH,
    LOW,
    RUN,
    TRIO,
    Meld,
    best_laydown,
    extend_run,
    fitting_cards,
    has_contract,
    lay_off,
    swap_joker,
    take_end_joker,
)
from continental_env.rules import (
    PRESETS,
    RuleConfig,
    cards_dealt,
    contract_for_round,
    resolve_rules,
)

# The phases bound once at import: attribute access on an enum class is slow in Python 3.11, and
# the engine compares phases on every action.
DRAW_PHASE, CLAIM_PHASE, PLAY_PHASE, GAME_OVER = Phase


class Game(GameBase):
    """One game of the contract game. Build it with ``Game.new``; see the module docstring."""

    STATE = State
    STATE_CHECKS = LOAD_CHECKS  # state_check.py: the loader's relations
    setup_from_dict = staticmethod(Setup.from_dict)

    def __init__(self, rules: RuleConfig, num_players: int) -> None:
        """An undealt game (``Game.new`` deals one); ValueError if the rules refuse the table."""
        setup = Setup.of(rules, num_players)
        self._attach(setup, State.fresh(setup))

    def _attach(self, setup: Setup, state: State) -> None:
        """Take the setup and position; the setup's facts are also bound here, for speed (they
        never change)."""
        super()._attach(setup, state)
        self.rules: RuleConfig = setup.rules
        self.num_players: int = setup.num_players
        self.layout: ActionLayout = setup.layout
        self.points: tuple[int, ...] = setup.points
        self._fits: list[int] | None = None

    # ------------------------------------------------------------------ the position's fields
    # Each reads (and writes) ``game.state.<field>``; the fields are declared in ``state.py``.

    round = state_field("round", "the round being played (its contract and deal size)")
    round_index = state_field("round_index", "position of ``round`` in ``rules.rounds``")
    dealer = state_field("dealer", "the seat that dealt this round")
    current = state_field("current", "the seat in turn")
    phase = state_field("phase", "what the position awaits (``Phase``)")
    asked = state_field("asked", "in a claim window, the seat whose answer is awaited")
    claim_queue = state_field("claim_queue", "in a claim window, the seats still to be asked")
    hands = state_field("hands", "each seat's hand as counts per card type")
    hand_sizes = state_field("hand_sizes", "cards in each hand")
    stock = state_field("stock", "the face-down stock, top card last")
    discard = state_field("discard", "the discard pile, top card last")
    table = state_field("table", "the melds laid down this round, in order")
    laid_down = state_field("laid_down", "whether each seat has laid its contract down")
    laid_down_turn = state_field("laid_down_turn", "the turn each seat laid down at, or -1")
    scores = state_field("scores", "cumulative points per seat")
    turn = state_field("turn", "turns completed (discards) this round")
    claims = state_field("claims", "claims each seat has made this round")
    known = state_field("known", "cards each seat is publicly known to hold")
    seen_discards = state_field("seen_discards", "counts of every card discarded face up")
    round_history = state_field("round_history", "one entry per scored round")
    last_action = state_field("last_action", "each seat's latest action id this round")
    moves = state_field("moves", "actions applied in the whole game")
    joker_moved = state_field("joker_moved", "the player in turn has moved a joker (003)")
    jokers_owed = state_field("jokers_owed", "swapped jokers still to lay off (004)")
    rng = state_field("rng", "this round's generator")
    deal_seeds = state_field("deal_seeds", "one deal seed per round")
    public_log = state_field("public_log", "the round's public actions")

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        rules: RuleConfig | str = PRESETS["continental"],
        num_players: int = 4,
        seed: int | None = None,
    ) -> Game:
        """A new game with the first round dealt; the same seed deals the same cards."""
        seed = as_seed(seed)
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
        s.public_log.start(PublicLog.key_for(s.round_index, s.deal_seeds), p)
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

    # ------------------------------------------------------------------ the static half

    # ``rules``, ``num_players``, ``layout`` (the action ids) and ``points`` (of each card type
    # left in a hand) are bound by ``_attach``.

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
        return self.state.phase == GAME_OVER

    @property
    def actor(self) -> int | None:
        """The seat whose action the state awaits (the asked seat in a claim window)."""
        s = self.state
        if s.phase == GAME_OVER:
            return None
        return s.asked if s.phase == CLAIM_PHASE else s.current

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

    def _compute_legal(self) -> list[int]:
        """Per kind of the phase: its candidates that pass its ``CHECKS`` (``legal.py``), in one
        call of the compiled ``_kernels.contract_legal`` when the kernels are built (the same
        ids; ``legal.py`` stays the definition and decides the rare hands the kernel leaves to
        the full contract search)."""
        native = kernels.native
        if native is not None:
            legal = native.contract_legal(self.state, *self.setup.legal_kernel_facts)
            if legal is not None:
                return legal
        return compute_legal(self)

    def layoff_ids_on(self, m: int) -> list[int]:
        """Every lay-off the hand allows onto table meld m (``legal.layoff_ids_on``)."""
        return layoff_ids_on(self, m)

    def movejoker_ids(self) -> list[int]:
        """003: every joker move (``legal.movejoker_ids``)."""
        return movejoker_ids(self)

    def hand_in_turn(self) -> list[int]:
        return self.state.hands[self.state.current]

    # ------------------------------------------------------------------ conditions (see CHECKS)

    def hand_size_in_turn(self) -> int:
        return self.state.hand_sizes[self.state.current]

    def laid_down_in_turn(self) -> bool:
        return self.state.laid_down[self.state.current]

    def has_contract_in_hand(self) -> bool:
        trios, runs = self.contract
        return has_contract(self.hand_in_turn(), trios, runs, self.rules)

    def discard_allowed(self, card: int) -> bool:
        """004: a seat not yet down may not discard a card that fits a table meld, unless every
        card it holds does."""
        if not self.rules.discard_restriction or self.laid_down_in_turn() or not self.state.table:
            return True
        fits = self.fitting_counts()
        if not fits[card]:
            return True
        hand = self.hand_in_turn()
        return all(fits[c] for c in range(NUM_TYPES) if hand[c])

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

    def owed_jokers_stay_placeable(self, kind: str, args: tuple) -> bool:
        """004: after this swap or lay-off, every joker taken by a swap can still be laid off.

        A joker goes on any trio, or on a free end of a run (a run holds at most 13 cards), and
        each lay-off must leave a card in hand; so the jokers owed fit while the hand keeps more
        cards than that and the table has a trio or enough free run places.
        """
        if not self.rules.swapped_joker_laid_off:
            return True
        size = self.hand_size_in_turn()
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

    def melds_exist(self, *melds: int) -> bool:
        return all(m < len(self.state.table) for m in melds)

    def missing_meld(self, *melds: int) -> str:
        m = next(m for m in melds if m >= len(self.state.table))
        return f"meld {m} does not exist (the table has {len(self.state.table)})"

    def meld_text(self, m: int) -> str:
        meld = self.state.table[m]
        return f"{meld.kind} {format_cards(meld.cards)}"

    # ------------------------------------------------------------------ applying actions

    def _perform(self, action: int) -> None:
        """``GameBase.apply`` checked the action: record it publicly, then its effect."""
        s = self.state
        kind, args = self.layout.parts[action]  # decode(action), split once per layout
        actor = s.asked if s.phase == CLAIM_PHASE else s.current  # self.actor (not over)
        # The public record first, while the discard pile still shows what the action saw.
        s.public_log.note(actor, kind, args, s.discard[-1] if s.discard else NO_CARD)
        s.last_action[actor] = action
        EFFECTS[kind](self, *args)

    def _do_draw(self) -> None:
        s = self.state
        p = self.num_players
        queue = []
        if s.discard:
            for k in range(1, p):
                seat = (s.current + k) % p
                if may_claim(s, self.setup, seat):
                    queue.append(seat)
        if queue:
            s.phase = CLAIM_PHASE
            s.claim_queue = queue
            s.asked = queue[0]
        else:
            self._finish_draw()

    def _finish_draw(self) -> None:
        """The player in turn draws from the stock after the claim window."""
        s = self.state
        s.phase = PLAY_PHASE
        s.asked = None
        s.claim_queue = []
        card = self._pop_stock()
        if card is None:
            self._end_round(closer=None)
            return
        self._add(s.current, card)

    def _pop_stock(self) -> int | None:
        """Top stock card, re-forming the stock from the discard pile if needed (RULES 1.7)."""
        s = self.state
        if not s.stock and len(s.discard) > 1:
            top = s.discard.pop()
            s.stock = s.discard
            s.rng.shuffle(s.stock)
            s.discard = [top]
        return s.stock.pop() if s.stock else None

    def _add(self, seat: int, card: int) -> None:
        self.state.hands[seat][card] += 1
        self.state.hand_sizes[seat] += 1

    def _remove(self, seat: int, card: int) -> None:
        s = self.state
        s.hands[seat][card] -= 1
        s.hand_sizes[seat] -= 1
        known = s.known[seat]
        if known[card]:
            known[card] -= 1

    def _do_take(self) -> None:
        s = self.state
        card = s.discard.pop()
        self._add(s.current, card)
        s.known[s.current][card] += 1
        s.phase = PLAY_PHASE

    def _do_claim(self) -> None:
        s = self.state
        seat = s.asked
        card = s.discard.pop()
        self._add(seat, card)
        s.known[seat][card] += 1
        s.claims[seat] += 1
        penalty = self._pop_stock()
        if penalty is not None:
            self._add(seat, penalty)
        self._finish_draw()

    def _do_pass(self) -> None:
        s = self.state
        s.claim_queue.pop(0)
        if s.claim_queue:
            s.asked = s.claim_queue[0]
        else:
            self._finish_draw()

    def _do_laydown(self) -> None:
        trios, runs = self.contract
        s = self.state
        self._lay_down(
            best_laydown(self.hand_in_turn(), trios, runs, self.rules, s.table, s.current)
        )

    def _lay_down(self, melds: list[Meld] | None) -> None:
        """Move the melds from the hand of the player in turn to the table."""
        assert melds is not None  # legal_actions checked that the contract is in hand
        s = self.state
        seat = s.current
        for meld in melds:
            for c in meld.cards:
                self._remove(seat, c)
            s.table.append(meld)
        s.laid_down[seat] = True
        s.laid_down_turn[seat] = s.turn
        self._fits = None

    def _do_layoff(self, slot: int, m: int) -> None:
        s = self.state
        self._fits = None
        if slot >= SLOT_JOKER:
            self._remove(s.current, JOKER)
            s.jokers_owed = max(0, s.jokers_owed - 1)
            lay_off(s.table[m], JOKER, LOW if slot == SLOT_JOKER_LOW else HIGH, self.rules)
            return
        self._remove(s.current, slot)
        lay_off(s.table[m], slot, None, self.rules)

    def _do_swap(self, card: int, m: int) -> None:
        s = self.state
        seat = s.current
        self._remove(seat, card)
        swap_joker(s.table[m], card)
        self._add(seat, JOKER)
        s.known[seat][JOKER] += 1
        if self.rules.swapped_joker_laid_off:
            s.jokers_owed += 1
        self._fits = None

    def _do_movejoker(self, src: int, dst: int, end: str) -> None:
        s = self.state
        take_end_joker(s.table[src], movable_joker_end(self, src), self.rules)
        extend_run(s.table[dst], JOKER, end, self.rules)
        s.joker_moved = True
        self._fits = None

    def _do_discard(self, card: int) -> None:
        s = self.state
        seat = s.current
        self._remove(seat, card)
        s.discard.append(card)
        s.seen_discards[card] += 1
        s.turn += 1
        s.joker_moved = False
        if s.turn >= self.rules.max_turns_per_round:
            self._end_round(closer=None)
            return
        s.current = (seat + 1) % self.num_players
        s.phase = DRAW_PHASE

    def _do_close(self) -> None:
        s = self.state
        seat = s.current
        card = next(c for c in range(NUM_TYPES) if s.hands[seat][c])
        self._remove(seat, card)
        s.discard.append(card)  # face down: never claimable, not a seen discard
        self._end_round(closer=seat)

    def _end_round(self, closer: int | None) -> None:
        s = self.state
        points = []
        for seat in range(self.num_players):
            if seat == closer:
                one_turn = s.laid_down_turn[seat] == s.turn
                points.append(self.rules.one_turn_bonus if one_turn else 0)
            else:
                points.append(self.hand_points(seat))
        for seat, pts in enumerate(points):
            s.scores[seat] += pts
        s.round_history.append(
            {"round": s.round, "points": points, "closer": closer, "turns": s.turn}
        )
        s.round_index += 1
        if s.round_index >= len(self.rules.rounds):
            s.phase = GAME_OVER
            s.asked = None
            s.claim_queue = []
            s.public_log.start(PublicLog.key_for(s.round_index, s.deal_seeds), self.num_players)
            self._invalidate()
            return
        s.round = self.rules.rounds[s.round_index]
        self._deal()

    # ------------------------------------------------------------------ explanations

    def action_to_str(self, action: int) -> str:
        """Text form of an action id, e.g. ``"layoff 9S 2"``."""
        return self.layout.to_str(action)

    def action_from_str(self, text: str) -> int:
        """Action id of a text form (the inverse of ``action_to_str``)."""
        return self.layout.from_str(text)

    def _illegal_reason(self, action: int) -> str:
        """Why an action id is not legal now: the first of its kind's ``CHECKS`` it fails."""
        try:
            kind, *args = self.layout.decode(action)
        except ValueError as exc:
            return f"illegal action: {exc}"
        text = self.layout.to_str(action)
        phase = self.state.phase
        head = f"illegal action {action} ({text!r}) in phase {phase!r}"
        if phase == GAME_OVER:
            return f"{head}: the game is over"
        want = PHASE_OF_KIND[kind]
        if want != phase:
            return f"{head}: '{kind}' is only legal in the {want.value} phase"
        for check in CHECKS[kind]:
            if not check.holds(self, tuple(args)):
                return f"{head}: {check.why(self, tuple(args))}"
        return f"{head}: not legal now"  # unreachable while CHECKS and CANDIDATES agree (tested)

    # ------------------------------------------------------------------ copies and JSON
    # ``clone``, ``to_dict`` and ``from_dict`` are ``GameBase``'s: the setup's keys and the
    # state's declared fields; loading runs ``state_check.CHECKS``.

    def __repr__(self) -> str:
        s = self.state
        return (
            f"Game({self.rules.name}, players={self.num_players}, round={s.round}, "
            f"phase={s.phase}, current={s.current})"
        )


# What each action kind does: ``apply`` calls ``EFFECTS[kind](game, *args)``.
EFFECTS: dict[str, Callable[..., None]] = {
    "draw": Game._do_draw,
    "take": Game._do_take,
    "claim": Game._do_claim,
    "pass": Game._do_pass,
    "laydown": Game._do_laydown,
    "close": Game._do_close,
    "discard": Game._do_discard,
    "layoff": Game._do_layoff,
    "swap": Game._do_swap,
    "movejoker": Game._do_movejoker,
}


__all__ = [
    "CANDIDATES",
    "CHECKS",
    "CLAIM",
    "CLOSE",
    "DISCARD_BASE",
    "DRAW",
    "EFFECTS",
    "KINDS_OF_PHASE",
    "LAYDOWN",
    "LAYOFF_BASE",
    "PASS",
    "PHASE_OF_KIND",
    "TAKE",
    "ActionLayout",
    "Game",
    "Phase",
    "Setup",
    "State",
]
