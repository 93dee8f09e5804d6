"""Hidden worlds consistent with one seat's view, for determinized search (``agents.contract.search``).

``sample_world(info, rng)`` deals the cards the seat cannot see (the opponents' unrevealed cards
and the stock order) at random and returns a ``Game`` built through ``Game.from_dict``, so every
world is a state the engine accepts.

**The only input is public.** ``PublicInfo.from_view(view)`` copies a fixed list of the view's
public fields (own hand, table, discard pile, known pick-ups, sizes, scores, claims, phase, and
the public log's per-seat discards and declines) into a frozen record; the live game the view keeps for ``observation()`` (``PlayerView._game``) is never
read, and ``PublicInfo`` has no field that could reach it. The sampler works on ``PublicInfo``
alone, so it cannot hand the searcher the real hidden cards; ``tests/test_sampler.py`` checks it
with a view whose live game is replaced by one that raises on any access.

**Consistency.** The unseen pool is the round's deck minus the own hand, the table, the discard
pile and the cards opponents are publicly known to hold. Known cards stay with their holders;
each opponent's remaining slots and the stock are filled from the shuffled pool, so hand sizes and
the stock size match the view and the card multiset equals the round's deck. A card seen in
the own hand, on the table or in the pile is never dealt to anyone.

What the view does not say is filled conservatively: ``laid_down_turn`` (it matters only for the
one-turn bonus of a seat that closes in the turn it lays down) is the previous turn for seats
already down, except the searching seat, whose own lay-down turn the caller may pass; the claim
queue is rebuilt from the public claim rules; the world has no per-round history (the view
holds only the totals); later rounds' deal seeds come from ``rng`` (a search
stops at the round's end).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agents.contract.handtools import shown_by_seat
from continental_env.cards import NUM_TYPES, card_to_str
from continental_env.contract.game import Game
from continental_env.melds import Meld
from continental_env.rules import PRESETS, RuleConfig, deck_counts

_PUBLIC_FIELDS = (
    "seat",
    "num_players",
    "rules",
    "round",
    "phase",
    "current",
    "asked",
    "dealer",
    "hand",
    "table",
    "discard",
    "known",
    "hand_sizes",
    "laid_down",
    "scores",
    "claims",
    "stock_size",
    "turn",
)


@dataclass(frozen=True)
class PublicInfo:
    """What one seat may see, copied field by field from a ``PlayerView`` (no live game)."""

    seat: int
    num_players: int
    rules: RuleConfig
    round: int
    phase: str
    current: int
    asked: int | None
    dealer: int
    hand: tuple[int, ...]
    table: tuple[Meld, ...]
    discard: tuple[int, ...]
    known: tuple[tuple[int, ...], ...]
    hand_sizes: tuple[int, ...]
    laid_down: tuple[bool, ...]
    scores: tuple[int, ...]
    claims: tuple[int, ...]
    stock_size: int
    turn: int
    # Per seat, the cards it discarded or declined this round (the public log), or None when
    # the view has no log for the round; read only by the history beliefs (agents.contract.beliefs).
    shown: tuple[tuple[int, ...], ...] | None = None

    @classmethod
    def from_view(cls, view: Any) -> PublicInfo:
        """Copy the public fields of ``view`` (a ``PlayerView``) and its public log's per-seat
        discards and declines; nothing else is read."""
        v = {name: getattr(view, name) for name in _PUBLIC_FIELDS}
        shown = shown_by_seat(getattr(view, "public_log", None), int(v["num_players"]))
        return cls(
            seat=int(v["seat"]),
            num_players=int(v["num_players"]),
            rules=v["rules"],
            round=int(v["round"]),
            phase=str(v["phase"]),
            current=int(v["current"]),
            asked=v["asked"],
            dealer=int(v["dealer"]),
            hand=tuple(v["hand"]),
            table=tuple(m.copy() for m in v["table"]),
            discard=tuple(v["discard"]),
            known=tuple(tuple(k) for k in v["known"]),
            hand_sizes=tuple(v["hand_sizes"]),
            laid_down=tuple(v["laid_down"]),
            scores=tuple(v["scores"]),
            claims=tuple(v["claims"]),
            stock_size=int(v["stock_size"]),
            turn=int(v["turn"]),
            shown=None if shown is None else tuple(tuple(x) for x in shown),
        )

    def deck(self) -> list[int]:
        """Counts per card type of the whole round's deck."""
        return list(deck_counts(self.rules, self.num_players, self.round))

    def unseen_pool(self) -> list[int]:
        """Counts per card type of the cards this seat cannot locate (opponents' slots, stock)."""
        pool = self.deck()
        for c in range(NUM_TYPES):
            pool[c] -= self.hand[c]
        for m in self.table:
            for c in m.cards:
                pool[c] -= 1
        for c in self.discard:
            pool[c] -= 1
        for s in range(self.num_players):
            if s != self.seat:
                for c in range(NUM_TYPES):
                    pool[c] -= self.known[s][c]
        if any(n < 0 for n in pool):
            raise ValueError("the view is inconsistent: more cards visible than the deck holds")
        return pool


def _claim_queue(info: PublicInfo) -> list[int]:
    """Seats still to be asked in a claim window: the asked seat and the later eligible seats."""
    if info.phase != "claim" or info.asked is None:
        return []
    p = info.num_players
    rules = info.rules
    cap = rules.max_claims_per_round
    queue = []
    start = (info.asked - info.current) % p
    for k in range(start, p):
        s = (info.current + k) % p
        if info.laid_down[s] and not rules.claims_after_laydown:
            continue
        if cap is not None and info.claims[s] >= cap:
            continue
        queue.append(s)
    if not queue or queue[0] != info.asked:
        queue.insert(0, info.asked)
    return queue


def shuffled_unseen(info: PublicInfo, rng: random.Random) -> list[int]:
    """The cards this seat cannot locate, shuffled; ValueError when they do not exactly fill
    the hidden places (the opponents' unknown slots and the stock)."""
    pool = info.unseen_pool()
    cards = [c for c in range(NUM_TYPES) for _ in range(pool[c])]
    rng.shuffle(cards)
    need = (
        sum(
            info.hand_sizes[s] - sum(info.known[s])
            for s in range(info.num_players)
            if s != info.seat
        )
        + info.stock_size
    )
    if need != len(cards):
        raise ValueError(
            f"the view is inconsistent: {len(cards)} unseen cards for {need} hidden places"
        )
    return cards


def fill_hands(
    info: PublicInfo, cards: list[int], hands: Sequence[list[int] | None]
) -> tuple[list[list[int]], list[int]]:
    """Complete a deal: the own hand as it is, and each seat whose hand is ``None`` gets its
    known cards plus the next of ``cards`` in order; what is left is the stock (top last)."""
    out: list[list[int]] = []
    pos = 0
    for s in range(info.num_players):
        given = hands[s]
        if given is not None:
            out.append(given)
        elif s == info.seat:
            out.append(list(info.hand))
        else:
            counts = list(info.known[s])
            free = info.hand_sizes[s] - sum(counts)
            for c in cards[pos : pos + free]:
                counts[c] += 1
            pos += free
            out.append(counts)
    return out, cards[pos:]


def deal_hidden(info: PublicInfo, rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """Every seat's hand as counts per card type (the own hand as it is, an opponent's known
    cards plus unseen cards drawn from the shuffled pool) and the stock (the rest of the pool,
    top last)."""
    return fill_hands(info, shuffled_unseen(info, rng), [None] * info.num_players)


def _card_texts(counts: Sequence[int]) -> list[str]:
    """The cards of a count vector as texts, in card order."""
    return [card_to_str(c) for c in range(NUM_TYPES) for _ in range(counts[c])]


def _laid_turns(info: PublicInfo, own_laid_down_turn: int | None) -> list[int]:
    """The turn each seat laid down (-1 if not): the last turn for an opponent (unknown), the
    given one for the own seat."""
    laid_turn = [
        (max(info.turn - 1, 0) if info.laid_down[s] else -1) for s in range(info.num_players)
    ]
    if info.laid_down[info.seat] and own_laid_down_turn is not None:
        laid_turn[info.seat] = own_laid_down_turn
    return laid_turn


def sample_world(
    info: PublicInfo,
    rng: random.Random,
    own_laid_down_turn: int | None = None,
    deal: tuple[list[list[int]], list[int]] | None = None,
) -> Game:
    """One hidden world consistent with ``info``, as a ``Game`` validated by ``from_dict``;
    ``deal`` is a ``deal_hidden`` result to build it from (default: a fresh one from ``rng``)."""
    p = info.num_players
    counts, stock_cards = deal if deal is not None else deal_hidden(info, rng)
    hands = [_card_texts(h) for h in counts]
    stock = [card_to_str(c) for c in stock_cards]
    laid_turn = _laid_turns(info, own_laid_down_turn)
    rules = info.rules
    preset = rules.name if PRESETS.get(rules.name) == rules else None
    seed_rng = random.Random(rng.getrandbits(64))
    version, state, gauss = seed_rng.getstate()
    known = [_card_texts(k) for k in info.known]
    data: dict[str, Any] = {
        "preset": preset,
        "rules": rules.to_dict(),
        "num_players": p,
        "round": info.round,
        "round_index": rules.rounds.index(info.round),
        "dealer": info.dealer,
        "current": info.current,
        "phase": info.phase,
        "asked": info.asked,
        "claim_queue": _claim_queue(info),
        "hands": hands,
        "stock": stock,
        "discard": [card_to_str(c) for c in info.discard],
        "table": [m.to_dict() for m in info.table],
        "laid_down": list(info.laid_down),
        "laid_down_turn": laid_turn,
        "scores": list(info.scores),
        "turn": info.turn,
        "claims": list(info.claims),
        "known": known,
        "seen_discards": [],
        "rng": [version, list(state), gauss],
        "deal_seeds": [seed_rng.getrandbits(64) for _ in rules.rounds],
    }
    return Game.from_dict(data)


__all__ = ["PublicInfo", "deal_hidden", "fill_hands", "sample_world", "shuffled_unseen"]
