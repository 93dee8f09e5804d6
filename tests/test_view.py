"""The contract seat view (``agents.contract.view.PlayerView``): a redacted copy, nothing else.

A view holds no reference to the live game, its generator or the round's deal seed, so hidden
cards are unreachable through it; a bot that changes the view's lists does not change the game.
"""

from __future__ import annotations

import random

import pytest

from agents import make_agent
from agents.contract.view import PlayerView
from continental_env.contract.game import Game
from continental_env.contract.public_log import PublicLog
from continental_env.contract.state import HIDDEN_RNG


def _positions(seed: int, every: int = 9) -> list[Game]:
    game = Game.new("continental", 4, seed=seed)
    rng = random.Random(seed)
    out = []
    step = 0
    while not game.is_over and len(out) < 30:
        if step % every == 0:
            out.append(game)
        game.apply(rng.choice(game.legal_actions()))
        step += 1
        game = game.clone()
    return out


def _reachable(root: object, depth: int = 4) -> list[object]:
    """Every object reachable from ``root`` through attributes and containers, to ``depth``."""
    seen: dict[int, object] = {}
    frontier = [root]
    for _ in range(depth):
        nxt = []
        for obj in frontier:
            if id(obj) in seen:
                continue
            seen[id(obj)] = obj
            if isinstance(obj, dict):
                nxt += list(obj.values())
            elif isinstance(obj, list | tuple):
                nxt += list(obj)
            elif hasattr(obj, "__dict__"):
                nxt += list(vars(obj).values())
            if hasattr(type(obj), "__slots__"):
                nxt += [getattr(obj, s) for s in type(obj).__slots__ if hasattr(obj, s)]
        frontier = nxt
    return list(seen.values())


def test_the_view_reaches_neither_the_game_nor_its_hidden_fields() -> None:
    for game in _positions(3):
        seat = game.actor
        view = PlayerView(game, seat)
        reached = _reachable(view)
        ids = {id(o) for o in reached}
        assert not any(isinstance(o, Game) for o in reached)
        for hidden in (game.state, game.state.rng, game.state.stock, game.state.deal_seeds):
            assert id(hidden) not in ids
        for s, hand in enumerate(game.state.hands):
            assert id(hand) not in ids, s
        # The round's deal seed (which fixes the deal) is in no key the view holds.
        assert view._state.deal_seeds == [0] * len(game.state.deal_seeds)
        assert view._state.public_log.key in (None, (game.state.round_index, 0))
        assert view._state.rng is HIDDEN_RNG
    # Positive control: the same walk does find the live game from an in-place world view.
    world = _positions(4)[5]
    assert id(world.state.stock) in {id(o) for o in _reachable(PlayerView.in_world(world, 0))}


def test_the_hidden_generator_draws_nothing() -> None:
    with pytest.raises(RuntimeError, match="hidden"):
        HIDDEN_RNG.random()
    with pytest.raises(RuntimeError, match="hidden"):
        HIDDEN_RNG.shuffle([1, 2, 3])
    with pytest.raises(RuntimeError, match="hidden"):
        HIDDEN_RNG.setstate(random.Random(1).getstate())
    with pytest.raises(RuntimeError, match="hidden"):
        HIDDEN_RNG.seed(1)


def test_a_bot_that_changes_its_view_does_not_change_the_game() -> None:
    for game in _positions(5):
        before = game.to_dict()
        view = PlayerView(game, game.actor)
        view.hand[0] += 3
        view.discard.append(7)
        view.known[1][2] += 1
        view.hand_sizes[0] = 99
        view.scores[1] = -5
        for meld in view.table:
            meld.cards.append(0)
        view.table.clear()
        view.legal_actions.clear()
        view._state.public_log.items.append((0, 0, 0))
        assert game.to_dict() == before
        assert game.legal_actions()


def test_the_view_observation_reads_the_log_of_its_round() -> None:
    # The copied log is keyed by the redacted seeds, so the v1 features still read its entries.
    checked = 0
    for game in _positions(6, every=5):
        view = PlayerView(game, game.actor)
        live_entries = game.state.public_log.entries(game)
        copy = Game.from_state(game.setup, view._state)
        assert view._state.public_log.entries(copy) == live_entries
        checked += bool(live_entries)
    assert checked > 5
    assert PublicLog.key_for(0, [0]) == (0, 0)


def test_strong_and_greedy_play_a_whole_game_through_views() -> None:
    # A whole game of strong and greedy: every decision through the view is legal and the game
    # ends (the view's copies are complete enough to play on).
    game = Game.new("continental", 4, seed=8)
    bots = [make_agent(n, s) for s, n in enumerate(("strong", "greedy", "strong", "greedy"))]
    while not game.is_over:
        action = bots[game.actor].act(PlayerView(game, game.actor))
        assert game.is_legal(action)
        game.apply(action)


def test_a_view_copies_and_pickles_and_its_copies_stay_hidden() -> None:
    import copy
    import pickle

    game = _positions(7)[4]
    view = PlayerView(game, game.actor)
    for twin in (copy.deepcopy(view), pickle.loads(pickle.dumps(view))):
        assert twin.hand == view.hand and twin.legal_actions == view.legal_actions
        with pytest.raises(RuntimeError, match="hidden"):
            twin._state.rng.random()
        assert twin.observation().tolist() == view.observation().tolist()
