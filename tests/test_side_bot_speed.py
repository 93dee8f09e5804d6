"""The side games' bots after their speed-ups make the decisions they made before: pruned and
cached evaluations against exhaustive ones on random hands, and every action of seeded games
against digests recorded with the unoptimised bots."""

from __future__ import annotations

import hashlib
import random

import pytest

from agents.evaluate import derive_seed
from agents.fifteen.greedy import connected, covered, suit_cover
from agents.fifteen.strong import _combine
from agents.games import game_spec
from agents.knock.greedy import VALUES, KnockGreedyAgent
from agents.knock.strong import KnockStrongAgent
from continental_env.cards import JOKER, NUM_RANKS, NUM_TYPES
from continental_env.melds import deadwood


def _random_hand(rng: random.Random, size: int, jokers: int) -> list[int]:
    cards = [c for c in range(JOKER) for _ in range(2)] + [JOKER] * jokers
    hand = [0] * NUM_TYPES
    for c in rng.sample(cards, size):
        hand[c] += 1
    return hand


def _exhaustive_knock_discard(hand: list[int]) -> tuple[int, tuple[int, int]]:
    """The knock greedy bot's discard as first written: both deadwood counts of every discard."""
    best_key, best = None, (-1, (0, 0))
    work = list(hand)
    for c in range(NUM_TYPES):
        if not work[c]:
            continue
        work[c] -= 1
        value = (deadwood(work), deadwood(work, 1))
        work[c] += 1
        key = (value, -VALUES[c] if c != JOKER else 0, c)
        if best_key is None or key < best_key:
            best_key, best = key, (c, value)
    return best


def test_knock_greedy_pruned_discard_equals_exhaustive() -> None:
    rng = random.Random(5)
    for _ in range(40):
        hand = _random_hand(rng, 11, 4)
        assert KnockGreedyAgent.best_discard(hand) == _exhaustive_knock_discard(hand)


def _exhaustive_covered(hand: list[int]) -> int:
    jokers = hand[JOKER]
    best = [0] * (jokers + 1)
    for suit in range(4):
        row = tuple(hand[suit * 13 : suit * 13 + 13])
        gains = [suit_cover(row, j) for j in range(jokers + 1)]
        best = [max(best[j - k] + gains[k] for k in range(j + 1)) for j in range(jokers + 1)]
    return max(best)


def _exhaustive_connected(hand: list[int]) -> int:
    total = 0
    for suit in range(4):
        row = hand[suit * 13 : suit * 13 + 13]
        for r in range(NUM_RANKS):
            near = {r - 2, r - 1, r + 1, r + 2} | ({11, 12} if r == 0 else set())
            near |= {0} if r in (11, 12) else set()
            if row[r] and any(0 <= x < NUM_RANKS and row[x] for x in near):
                total += row[r]
    return total


def test_fifteen_hand_values_equal_exhaustive() -> None:
    rng = random.Random(6)
    for i in range(60):
        hand = _random_hand(rng, 16, 2 if i % 2 else 0)
        assert covered(hand) == _exhaustive_covered(hand)
        assert connected(hand) == _exhaustive_connected(hand)
        gains = [[suit_cover(tuple(hand[s * 13 : s * 13 + 13]), 0)] for s in range(4)]
        assert _combine(gains, 0) == sum(g[0] for g in gains)


# sha256 of every action (2 bytes, little-endian) of the games below, recorded with the bots
# before the speed-ups (fifteen: no shortcut for joker-free hands or cached suit rows; knock:
# both deadwood counts of every discard, no bound). Knock ``strong`` plays with the weights it
# had then (it was retuned since; the speed-ups are what this pins).
PREVIOUS_KNOCK_STRONG = {"draw_weight": 1.5, "buy_share": 1.0, "no_buy_chance": 0.05}
DIGESTS = {
    ("fifteen", "hands=1"): "4e38fe40b8a9fa4e",
    ("knock", "max_hands=1"): "892b3083d57a3391",
}


@pytest.mark.parametrize(("game", "option"), sorted(DIGESTS))
def test_seeded_games_play_the_recorded_actions(game: str, option: str) -> None:
    spec = game_spec(game)
    key, value = option.split("=")
    digest = hashlib.sha256()
    for g in range(6):
        names = (
            ["strong", "greedy", "strong", "greedy"]
            if g % 2
            else ["greedy", "strong", "greedy", "greedy"]
        )
        state = spec.new_game(4, derive_seed(77, g), {key: int(value)})
        bots = [
            KnockStrongAgent(s, **PREVIOUS_KNOCK_STRONG)
            if (game, name) == ("knock", "strong")
            else spec.make_agent(name, s)
            for s, name in enumerate(names)
        ]
        while not state.is_over:
            action = bots[state.actor].act(spec.view(state, state.actor))
            digest.update(action.to_bytes(2, "little"))
            state.apply(action)
    assert digest.hexdigest()[:16] == DIGESTS[(game, option)]
