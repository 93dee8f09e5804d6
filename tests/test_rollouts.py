"""The search's rollouts on the compiled core (``agents.contract.rollouts``) against the Python
reference (``agents.contract.search._rollout_value``): the same value for every world, so the
same moves."""

from __future__ import annotations

import random

import pytest

from agents.contract import make_agent
from agents.contract.greedy import GreedyAgent
from agents.contract.rollouts import CompiledRollouts, compiled_available
from agents.contract.sampler import PublicInfo, sample_world
from agents.contract.search import SearchAgent, _rollout_value
from agents.contract.strong import StrongAgent
from agents.contract.view import PlayerView
from agents.evaluate.deals import play_game
from tests.helpers import TABLES, played

pytestmark = pytest.mark.skipif(not compiled_available(), reason="compiled batch core not built")


def _worlds(preset: str, players: int, seed: int) -> list:
    """Sampled worlds of random-play positions, as the search samples them, and each after one
    of its legal actions (the candidates' worlds)."""
    rng = random.Random(seed)
    out = []
    for game in played(preset, players, seed, 6):
        if game.is_over or game.actor is None:
            continue
        view = PlayerView(game, game.actor)
        world = sample_world(PublicInfo.from_view(view), rng, None)
        for a in rng.sample(world.legal_actions(), min(2, len(world.legal_actions()))):
            w = world.clone()
            w.apply(a)
            out.append((w, view.seat))
    return out


@pytest.mark.parametrize(("preset", "players"), TABLES)
@pytest.mark.parametrize("policy", ["strong", "greedy"])
def test_compiled_rollouts_equal_the_reference(preset: str, players: int, policy: str) -> None:
    bot = StrongAgent(0) if policy == "strong" else GreedyAgent(0)
    worlds = _worlds(preset, players, 31 + players)
    assert worlds
    compiled = CompiledRollouts(policy).values([w for w, _ in worlds], 0)
    for (w, seat), got in zip(worlds, compiled, strict=True):
        want = _rollout_value(w.clone(), 0, [bot] * players)
        assert got == want, (preset, players, seat, w.round_index)


def test_the_comparison_sees_another_policy() -> None:
    """Positive control: the same worlds rolled out by greedy give other values somewhere."""
    worlds = [w for w, _ in _worlds("continental", 4, 7)]
    strong = CompiledRollouts("strong").values(worlds, 0)
    greedy = CompiledRollouts("greedy").values(worlds, 0)
    assert strong != greedy


def test_values_leave_the_worlds_unchanged() -> None:
    worlds = [w for w, _ in _worlds("continental", 4, 9)]
    before = [w.to_dict() for w in worlds]
    CompiledRollouts("strong").values(worlds, 1)
    assert [w.to_dict() for w in worlds] == before


@pytest.mark.parametrize("players", [3, 4, 6])
def test_search_v5_plays_the_same_game_with_compiled_rollouts(players: int, monkeypatch) -> None:
    """A game of search@v5 against strong@v1, with and without the compiled rollouts: the same
    moves, hence the same result (the pinned recorded games of ``tests/test_versions.py`` check
    every move of the frozen searches with the compiled rollouts)."""
    import agents.contract.search as search

    names = ["search@v5:8"] + ["strong@v1"] * (players - 1)
    rounds = {"rounds": [2, 6]}  # a trios-and-run round and a long runs-only one
    calls = []
    values = CompiledRollouts.values
    monkeypatch.setattr(
        CompiledRollouts, "values", lambda s, w, seat: calls.append(1) or values(s, w, seat)
    )
    compiled = play_game(names, 4242 + players, list(range(players)), options=rounds)
    assert len(calls) >= 5  # the search really searched, on the compiled rollouts
    monkeypatch.setattr(search, "compiled_available", lambda: False)
    reference = play_game(names, 4242 + players, list(range(players)), options=rounds)
    assert compiled == reference


def test_search_uses_the_compiled_rollouts_when_built() -> None:
    bot = make_agent("search@v5", 1)
    assert isinstance(bot._compiled, CompiledRollouts)
    assert SearchAgent(1, compiled=False)._compiled is None


def test_compiled_rollouts_refuse_a_policy_without_a_compiled_bot() -> None:
    with pytest.raises(ValueError, match="'fast' has no compiled bot"):
        SearchAgent(1, rollout="fast", compiled=True)
    with pytest.raises(ValueError, match="rollout policy 'fast' has no compiled bot"):
        CompiledRollouts("fast")
