"""The world sampler of the search bot: every world agrees with the view, and only the view."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from agents import make_agent
from agents.contract.sampler import PublicInfo, sample_world
from agents.contract.view import PlayerView
from continental_env.cards import NUM_TYPES
from continental_env.contract.game import Game
from continental_env.rules import PRESETS
from tests.test_agents import _hide_differently


def _decision_views(preset: str, seed: int, every: int = 2, rounds=(1, 2, 6)):
    """Views of the seat to act along a game played by the heuristics."""
    rules = replace(PRESETS[preset], max_turns_per_round=60, rounds=rounds)
    game = Game.new(rules, 4, seed=seed)
    bots = [make_agent(n, s) for s, n in enumerate(("strong", "greedy", "strong", "greedy"))]
    step = 0
    while not game.is_over:
        seat = game.actor
        view = PlayerView(game, seat)
        if step % every == 0:
            yield game, view
        game.apply(bots[seat].act(view))
        step += 1


def _multiset(world: Game) -> Counter:
    total: Counter = Counter()
    for h in world.hands:
        total.update({c: n for c, n in enumerate(h) if n})
    total.update(world.stock)
    total.update(world.discard)
    for m in world.table:
        total.update(m.cards)
    return total


@pytest.mark.parametrize("preset", ["continental", "continental_us"])
def test_no_sampled_world_contradicts_the_view(preset: str) -> None:
    rng = random.Random(3)
    checked = differing = 0
    for game, view in _decision_views(preset, seed=5):
        info = PublicInfo.from_view(view)
        worlds = [sample_world(info, rng) for _ in range(3)]
        deck = _multiset(game)
        for w in worlds:
            seat = view.seat
            assert w.hands[seat] == view.hand
            assert [m.to_dict() for m in w.table] == [m.to_dict() for m in view.table]
            assert w.discard == view.discard
            assert w.hand_sizes == view.hand_sizes
            assert len(w.stock) == view.stock_size
            assert (w.phase, w.current, w.asked, w.turn) == (
                view.phase,
                view.current,
                view.asked,
                view.turn,
            )
            assert w.laid_down == view.laid_down and w.scores == view.scores
            for s in range(view.num_players):
                assert all(w.hands[s][c] >= view.known[s][c] for c in range(NUM_TYPES))
            assert _multiset(w) == deck  # the round's deck, every card exactly once
            assert sorted(w.legal_actions()) == sorted(view.legal_actions) or w.actor != seat
            data = w.to_dict()
            # The view has no per-round history (only totals), so a world carries none.
            assert data["round_history"] == []
            del data["round_history"]
            Game.from_dict(data)  # a legal state, round-tripped through validation
            checked += 1
        differing += worlds[0].to_dict()["hands"] != worlds[1].to_dict()["hands"]
    assert checked > 300
    assert differing > 50  # the hidden cards really are resampled


def test_sampler_never_reads_the_live_game() -> None:
    class Poison:
        def __getattr__(self, name: str) -> None:
            raise AssertionError(f"the sampler touched the live game ({name})")

    rng = random.Random(0)
    for n, (_game, view) in enumerate(_decision_views("continental", seed=2, every=7)):
        view._game = Poison()  # type: ignore[assignment]
        info = PublicInfo.from_view(view)
        assert not any(isinstance(v, Game | Poison) for v in vars(info).values())
        sample_world(info, rng)
        if n > 40:
            break


def test_worlds_do_not_depend_on_the_real_hidden_cards() -> None:
    rng = random.Random(9)
    compared = cheats_differ = 0
    for game, view in _decision_views("continental", seed=4, every=3):
        other = _hide_differently(game, view.seat, rng)
        other_view = PlayerView(other, view.seat)
        a = sample_world(PublicInfo.from_view(view), random.Random(1)).to_dict()
        b = sample_world(PublicInfo.from_view(other_view), random.Random(1)).to_dict()
        assert a == b
        compared += 1
        # Positive control: a sampler fed the real hands (as if every card were "known") gives
        # worlds that change with them, so the equality above would catch a leak.
        cheat_a = replace(PublicInfo.from_view(view), known=tuple(map(tuple, game.hands)))
        cheat_b = replace(PublicInfo.from_view(other_view), known=tuple(map(tuple, other.hands)))
        wa = sample_world(cheat_a, random.Random(1)).to_dict()["hands"]
        wb = sample_world(cheat_b, random.Random(1)).to_dict()["hands"]
        cheats_differ += wa != wb
    assert compared > 30 and cheats_differ > 15


def test_inconsistent_view_is_refused() -> None:
    game = Game.new("continental", 4, seed=1)
    view = PlayerView(game, game.actor)
    view.stock_size += 1
    with pytest.raises(ValueError, match="inconsistent"):
        sample_world(PublicInfo.from_view(view), random.Random(0))
