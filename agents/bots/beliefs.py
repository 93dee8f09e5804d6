"""Beliefs for the search: hidden worlds resampled so opponents are as close to their contract
as real opponents are.

Worlds dealt uniformly from the unseen cards (``agents.bots.sampler``) make opponents slower
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
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from agents.bots.sampler import PublicInfo, deal_hidden, fill_hands, shuffled_unseen
from continental_env.melds.distance import contract_distance
from continental_env.rules import contract_for_round

TURN_BUCKET = 4  # turns completed per stage of a round (a turn is one seat's discard)
STAGES = 10  # stages; later turns share the last
MAX_DISTANCE = 6  # distances above share the last bin
TABLE_FILE = "belief_distance_v1.json"  # frozen: search@v3 reads it; rebuild to a new name


def stage(turn: int) -> int:
    """The calibration stage of a round after ``turn`` discards."""
    return min(turn // TURN_BUCKET, STAGES - 1)


def distance_bin(counts: list[int], round_number: int, rules: Any) -> int:
    """An opponent hand's distance to the round's contract, capped at ``MAX_DISTANCE``."""
    trios, runs = contract_for_round(round_number)
    return min(contract_distance(counts, trios, runs, rules), MAX_DISTANCE)


@dataclass(frozen=True)
class BeliefTable:
    """Likelihood ratios per (round, stage) and distance bin, and the table they were
    calibrated at (players, preset): elsewhere the sampler deals uniformly."""

    ratios: dict[tuple[int, int], list[float]]
    players: int
    preset: str


@cache
def load_table(name: str = TABLE_FILE) -> BeliefTable:
    """A packaged calibration table (``agents/models/``)."""
    data = json.loads(resources.files("agents.models").joinpath(name).read_text())
    ratios = {
        (int(r), int(st)): [float(x) for x in values]
        for r, stages in data["ratios"].items()
        for st, values in stages.items()
    }
    return BeliefTable(ratios, int(data["players"]), str(data["preset"]))


class BeliefSampler:
    """Deals hidden cards by sampling-importance-resampling (module docstring)."""

    def __init__(self, candidates: int, table: BeliefTable | None = None):
        if candidates < 1:
            raise ValueError(f"belief candidates must be at least 1, got {candidates}")
        self.candidates = candidates
        self.table = table if table is not None or candidates == 1 else load_table()

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
        cards = shuffled_unseen(info, rng)
        hands: list[list[int] | None] = [None] * info.num_players
        for s in range(info.num_players):
            if s == info.seat or info.laid_down[s]:
                continue
            free = info.hand_sizes[s] - sum(info.known[s])
            options, weights = [], []
            for _ in range(self.candidates):
                picks = rng.sample(range(len(cards)), free)
                counts = list(info.known[s])
                for i in picks:
                    counts[cards[i]] += 1
                options.append((picks, counts))
                weights.append(ratios[distance_bin(counts, info.round, info.rules)])
            chosen, hands[s] = rng.choices(options, weights)[0]
            taken = set(chosen)
            cards = [c for i, c in enumerate(cards) if i not in taken]
        rng.shuffle(cards)
        return fill_hands(info, cards, hands)


__all__ = ["BeliefSampler", "BeliefTable", "distance_bin", "load_table", "stage"]
