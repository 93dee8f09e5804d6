"""Beliefs for the search: hidden worlds resampled so opponents are as close to their contract
as real opponents are.

Worlds dealt uniformly from the unseen cards (``agents.bots.sampler``) make opponents slower
than they are: players keep the cards that build their contract and throw the others, so a real
hand is nearer the contract than a random hand of the same size. Over 507 opponent hands at
``search``'s decisions, the distance to the contract (``melds.contract_distance``: the fewest
cards to add before it can be laid down) was 2.44 cards real against 3.40 sampled.

**The model.** A calibration table, built from games of four ``strong@v1`` players
(``scripts/belief_calibration.py``), holds for each round and stage of the round (turns
completed, in buckets of ``TURN_BUCKET``) two histograms of an opponent's distance: the real
hands, and hands dealt by the uniform sampler from the same seat's view. Their ratio is the
likelihood ratio ``w(d)`` of a distance under real play against uniform dealing.

**Resampling.** ``BeliefSampler.deal`` deals the opponents not yet down one after the other:
for each, ``m`` hands drawn from the cards not yet placed, one kept with probability
proportional to ``w(d)`` of its distance (sampling-importance-resampling, per opponent): with
``m`` large the kept hands follow the real distance distribution, with ``m = 1`` it is the
uniform sampler. The rest (opponents already down, the stock) is dealt uniformly. Only the seat's public information and
the table enter it; the table itself comes from recorded games, not from the game being played.
"""

from __future__ import annotations

import json
import random
from functools import cache
from importlib import resources
from typing import Any

from agents.bots.sampler import PublicInfo, deal_hidden
from continental_env.cards import NUM_TYPES
from continental_env.melds.distance import contract_distance
from continental_env.rules import contract_for_round

TURN_BUCKET = 4  # turns completed per stage of a round (a turn is one seat's discard)
STAGES = 10  # stages; later turns share the last
MAX_DISTANCE = 6  # distances above share the last bin
TABLE_FILE = "belief_distance.json"


def stage(turn: int) -> int:
    """The calibration stage of a round after ``turn`` discards."""
    return min(turn // TURN_BUCKET, STAGES - 1)


def distance_bin(counts: list[int], round_number: int, rules: Any) -> int:
    """An opponent hand's distance to the round's contract, capped at ``MAX_DISTANCE``."""
    trios, runs = contract_for_round(round_number)
    return min(contract_distance(counts, trios, runs, rules), MAX_DISTANCE)


@cache
def load_table(name: str = TABLE_FILE) -> dict[tuple[int, int], list[float]]:
    """{(round, stage): w per distance bin} from the packaged calibration table."""
    text = resources.files("agents.models").joinpath(name).read_text()
    data = json.loads(text)
    return {
        (int(r), int(st)): [float(x) for x in ratios]
        for r, stages in data["ratios"].items()
        for st, ratios in stages.items()
    }


class BeliefSampler:
    """Deals hidden cards by sampling-importance-resampling (module docstring)."""

    def __init__(self, candidates: int, table: dict[tuple[int, int], list[float]] | None = None):
        if candidates < 1:
            raise ValueError(f"belief candidates must be at least 1, got {candidates}")
        self.candidates = candidates
        self.table = load_table() if table is None and candidates > 1 else (table or {})

    def deal(self, info: PublicInfo, rng: random.Random) -> tuple[list[list[int]], list[int]]:
        """A ``deal_hidden``-shaped deal: each opponent not yet down in turn gets one of
        ``candidates`` hands drawn from the cards still unplaced (its known cards plus random
        ones), kept with probability proportional to ``w`` of its distance; the others' hands
        and the stock are then dealt uniformly from what is left."""
        if self.candidates == 1:
            return deal_hidden(info, rng)
        p = info.num_players
        pool = info.unseen_pool()
        cards = [c for c in range(NUM_TYPES) for _ in range(pool[c])]
        rng.shuffle(cards)
        ratios = self.table.get((info.round, stage(info.turn)))
        hands: list[list[int] | None] = [None] * p
        hands[info.seat] = list(info.hand)
        for s in range(p):
            if s == info.seat or info.laid_down[s] or ratios is None:
                continue
            free = info.hand_sizes[s] - sum(info.known[s])
            options, weights = [], []
            for _ in range(self.candidates):
                picks = rng.sample(range(len(cards)), free)
                counts = list(info.known[s])
                for i in picks:
                    counts[cards[i]] += 1
                options.append(picks)
                weights.append(ratios[distance_bin(counts, info.round, info.rules)])
            chosen = rng.choices(options, weights)[0]
            counts = list(info.known[s])
            for i in chosen:
                counts[cards[i]] += 1
            hands[s] = counts
            taken = set(chosen)
            cards = [c for i, c in enumerate(cards) if i not in taken]
        rng.shuffle(cards)
        pos = 0
        for s in range(p):
            if hands[s] is None:
                counts = list(info.known[s])
                free = info.hand_sizes[s] - sum(counts)
                for c in cards[pos : pos + free]:
                    counts[c] += 1
                pos += free
                hands[s] = counts
        return [h for h in hands if h is not None], cards[pos:]


__all__ = ["BeliefSampler", "distance_bin", "load_table", "stage"]
