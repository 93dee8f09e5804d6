"""Beliefs for the search: hidden worlds resampled so opponents are as close to their contract
as real opponents are.

Worlds dealt uniformly from the unseen cards (``agents.contract.sampler``) make opponents slower
than they are: players keep the cards that build their contract and throw the others, so a real
hand is nearer the contract (``melds.contract_distance``: the fewest cards to add before it can
be laid down) than a random hand of the same size. At the start of every turn of 100 games of
four ``strong@v1`` players, an opponent not yet down was 2.28 cards from its contract on average
and within one card 29 % of the time; the hands the uniform sampler dealt it from the same view,
3.35 and 4 % (distances capped at ``MAX_DISTANCE``; ``scripts/belief_calibration.py check``).

**The model.** A calibration table, built from games of four ``strong@v1`` players
(``scripts/belief_calibration.py build``), holds for each round and stage of the round (turns
completed, in buckets of ``TURN_BUCKET``: one lap of a 4-player table) the ratio of two
histograms of an opponent's distance: the real hands, and the hands the uniform sampler deals
it from the same seat's view. It is the likelihood ratio ``w(d)`` of a distance under real play
against uniform dealing. The table records the table size and preset it was calibrated at;
elsewhere the sampler deals uniformly. A table is frozen once a version reads it
(``belief_distance_v1.json``: ``search@v3``); a rebuilt one goes to a new file.

**Resampling.** ``BeliefSampler.deal`` deals the opponents not yet down one after the other:
for each, ``m`` hands drawn from the cards not yet placed, one kept with probability
proportional to ``w(d)`` of its distance (sampling-importance-resampling, per opponent): with
``m`` large the kept hands follow the real distance distribution, with ``m = 1`` it is the
uniform sampler. The rest (opponents already down, the stock) is dealt uniformly. Only the
seat's public information and the table enter it; the table comes from recorded games, not
from the game being played. It is a marginal model: it knows the round and the stage, not what
each opponent took, claimed or declined.

**History** (``belief_history_v1.json``, ``BeliefSampler(..., history=True)``). A player does not
throw or decline a card it can use, so a real hand holds fewer partners of the cards its seat
discarded or declined this round (the public log, ``PublicInfo.shown``) than a random hand does:
over 4,861 opponent turns of ten ``strong@v1`` games, the unknown cards of a real hand shared a
rank with the shown cards 8.4 times (a random hand 10.9), a suit within two ranks 8.1 times
(10.7). The history table is a joint likelihood ratio over the distance bin and the hand's
*excess partners*: the number of (shown card, held unknown card) pairs that could start a
contract meld together (``handtools.partner_table`` under the round's contract), minus what a
random hand of the same size drawn from the unseen cards would have on average, binned at
``EXCESS_EDGES``. Built and checked like the distance table
(``scripts/belief_calibration.py build --history``); where the view has no log it falls back to
the distance ratios of the same table.
"""

from __future__ import annotations

import json
import random
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from agents.contract.handtools import contract_bits, partner_table
from agents.contract.sampler import PublicInfo, deal_hidden, fill_hands, shuffled_unseen
from continental_env import kernels
from continental_env.cards import JOKER, NUM_TYPES
from continental_env.melds.distance import contract_distance
from continental_env.rules import contract_for_round

TURN_BUCKET = 4  # turns completed per stage of a round (a turn is one seat's discard)
STAGES = 10  # stages; later turns share the last
MAX_DISTANCE = 6  # distances above share the last bin
TABLE_FILE = "belief_distance_v1.json"  # frozen: search@v3 reads it; rebuild to a new name
HISTORY_FILE = "belief_history_v1.json"  # the joint (distance, excess partners) table
EXCESS_EDGES = (-6.0, -3.0, -1.0, 1.0, 3.0, 6.0)  # bin i holds EXCESS_EDGES[i-1] <= x < EDGES[i]
EXCESS_BINS = len(EXCESS_EDGES) + 1


def stage(turn: int) -> int:
    """The calibration stage of a round after ``turn`` discards."""
    return min(turn // TURN_BUCKET, STAGES - 1)


def distance_bin(counts: list[int], round_number: int, rules: Any) -> int:
    """An opponent hand's distance to the round's contract, capped at ``MAX_DISTANCE``."""
    trios, runs = contract_for_round(round_number)
    return min(contract_distance(counts, trios, runs, rules), MAX_DISTANCE)


def excess_bin(excess: float) -> int:
    """The history bin of a hand's excess partners (``EXCESS_EDGES``)."""
    return bisect_right(EXCESS_EDGES, excess)


def partner_weights(info: PublicInfo, seat: int) -> list[float] | None:
    """Per card type, how many (card shown by ``seat`` this round, this card) pairs could start
    a meld of the round's contract: a hand's partners of its own shown cards are the sum over
    its cards. None where the view has no log or the seat showed nothing."""
    if info.shown is None or not any(info.shown[seat]):
        return None
    table = partner_table(info.rules)
    bits = contract_bits(contract_for_round(info.round))
    shown = info.shown[seat]
    out = [0.0] * NUM_TYPES
    for c in range(NUM_TYPES):
        if shown[c] and c != JOKER:
            row = table[c]
            for d in range(JOKER):  # a joker partners everything: it says nothing
                if row[d] & bits:
                    out[d] += shown[c]
    return out


def excess_partners(info: PublicInfo, seat: int, counts: list[int]) -> float | None:
    """A hand's partners of its seat's shown cards among its unknown cards, minus a random hand's
    of the same size from the unseen cards (what the history table bins); None without a log."""
    pw = partner_weights(info, seat)
    if pw is None:
        return None
    held = sum(pw[c] * (counts[c] - info.known[seat][c]) for c in range(NUM_TYPES))
    return held - _random_partners(info, seat, pw, info.unseen_pool())


def _random_partners(info: PublicInfo, seat: int, pw: list[float], pool: list[int]) -> float:
    """The mean partners of a random hand: the seat's unknown slots times the mean weight of
    the cards it could hold (``pool``: all those unseen by the searching seat)."""
    size = sum(pool)
    free = info.hand_sizes[seat] - sum(info.known[seat])
    return free * sum(w * n for w, n in zip(pw, pool, strict=True)) / size if size else 0.0


@dataclass(frozen=True)
class BeliefTable:
    """Likelihood ratios per (round, stage) and distance bin, and the table they were
    calibrated at (players, preset): elsewhere the sampler deals uniformly. ``joint``, in a
    history table, holds per (round, stage) the ratios by distance bin and excess bin."""

    ratios: dict[tuple[int, int], list[float]]
    players: int
    preset: str
    joint: dict[tuple[int, int], list[list[float]]] | None = None


@cache
def load_table(name: str = TABLE_FILE) -> BeliefTable:
    """A packaged calibration table (``agents/models/``)."""
    data = json.loads(resources.files("agents.models").joinpath(name).read_text())
    ratios = {
        (int(r), int(st)): [float(x) for x in values]
        for r, stages in data["ratios"].items()
        for st, values in stages.items()
    }
    joint = None
    if "joint" in data:
        joint = {
            (int(r), int(st)): [[float(x) for x in row] for row in values]
            for r, stages in data["joint"].items()
            for st, values in stages.items()
        }
    return BeliefTable(ratios, int(data["players"]), str(data["preset"]), joint)


class BeliefSampler:
    """Deals hidden cards by sampling-importance-resampling (module docstring); ``history``
    reads the joint table of distance and excess partners (default file ``HISTORY_FILE``)."""

    def __init__(self, candidates: int, table: BeliefTable | None = None, history: bool = False):
        if candidates < 1:
            raise ValueError(f"belief candidates must be at least 1, got {candidates}")
        self.candidates = candidates
        if table is None and candidates > 1:
            table = load_table(HISTORY_FILE if history else TABLE_FILE)
        if history and table is not None and table.joint is None:
            raise ValueError("history beliefs need a table with joint ratios (build --history)")
        self.table = table
        self.history = history

    def ratios(self, info: PublicInfo) -> list[float] | None:
        """The table's ratios for this position, or None where it was not calibrated (another
        table size or preset, or a stage it lacks)."""
        t = self.table
        if t is None or info.num_players != t.players or info.rules.name != t.preset:
            return None
        return t.ratios.get((info.round, stage(info.turn)))

    def deal(self, info: PublicInfo, rng: random.Random) -> tuple[list[list[int]], list[int]]:
        """A ``deal_hidden``-shaped deal: each opponent not yet down in turn gets one of
        ``candidates`` hands drawn from the cards still unplaced (its known cards plus random
        ones), kept with probability proportional to ``w`` of its distance; the others' hands
        and the stock are then dealt uniformly from what is left."""
        ratios = self.ratios(info) if self.candidates > 1 else None
        if ratios is None:
            return deal_hidden(info, rng)
        joint = self.table.joint if self.history and self.table is not None else None
        grid = joint.get((info.round, stage(info.turn))) if joint is not None else None
        cards = shuffled_unseen(info, rng)
        pool = info.unseen_pool() if grid is not None else []  # the same for every opponent
        hands: list[list[int] | None] = [None] * info.num_players
        for s in range(info.num_players):
            if s == info.seat or info.laid_down[s]:
                continue
            chosen, hands[s] = self._weighted_hand(info, s, cards, rng, ratios, grid, pool)
            taken = set(chosen)
            cards = [c for i, c in enumerate(cards) if i not in taken]
        rng.shuffle(cards)
        return fill_hands(info, cards, hands)

    def _weighted_hand(
        self,
        info: PublicInfo,
        s: int,
        cards: list[int],
        rng: random.Random,
        ratios: list[float],
        grid: Any,
        pool: list[int],
    ) -> tuple[list[int], list[int]]:
        """Opponent ``s``'s hand: ``candidates`` draws of its free cards from ``cards`` (indices
        and the hand's counts), one kept with probability proportional to its weight: the
        distance ratio alone, or with the history ``grid`` the joint weight of distance and how
        many partners of its discarded or declined cards it holds."""
        free = info.hand_sizes[s] - sum(info.known[s])
        pw = partner_weights(info, s) if grid is not None else None
        base = _random_partners(info, s, pw, pool) if pw is not None else 0.0
        native = kernels.native
        if native is not None and type(rng) is random.Random and len(ratios) == MAX_DISTANCE + 1:
            # The same draws in C on the generator's own state (_beliefs_c.h): the same hand,
            # and the generator left where the loop below leaves it.
            version, state, gauss = rng.getstate()
            trios, runs = contract_for_round(info.round)
            picks, counts, state = native.weighted_hand(
                state, cards, info.known[s], free, self.candidates, ratios,
                grid if pw is not None else None, EXCESS_EDGES, pw, base, trios, runs,
                info.rules.min_run, info.rules.ace_wraparound,
            )  # fmt: skip
            rng.setstate((version, state, gauss))
            return picks, counts
        return self._weighted_hand_reference(info, s, cards, rng, ratios, grid, free, pw, base)

    def _weighted_hand_reference(
        self,
        info: PublicInfo,
        s: int,
        cards: list[int],
        rng: random.Random,
        ratios: list[float],
        grid: Any,
        free: int,
        pw: list[float] | None,
        base: float,
    ) -> tuple[list[int], list[int]]:
        """``_weighted_hand``'s draws in Python: the readable definition the kernel follows."""
        options, weights = [], []
        for _ in range(self.candidates):
            picks = rng.sample(range(len(cards)), free)
            counts = list(info.known[s])
            for i in picks:
                counts[cards[i]] += 1
            options.append((picks, counts))
            d = distance_bin(counts, info.round, info.rules)
            if pw is None or grid is None:  # no history: the distance ratio alone
                weights.append(ratios[d])
            else:
                excess = sum(pw[cards[i]] for i in picks) - base
                weights.append(grid[d][excess_bin(excess)])
        return rng.choices(options, weights)[0]


__all__ = [
    "EXCESS_BINS",
    "EXCESS_EDGES",
    "HISTORY_FILE",
    "BeliefSampler",
    "BeliefTable",
    "distance_bin",
    "excess_bin",
    "excess_partners",
    "load_table",
    "partner_weights",
    "stage",
]
