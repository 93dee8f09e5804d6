"""``search-prior``: the network's move comes first and is kept unless the search's guard passes
another candidate; names and refusals; decisions from the view alone (with a positive control
that sees the hidden cards)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from agents import make_agent
from agents.bots.ppo_agent import load_agent
from agents.contract.search_adaptive import FROZEN, SearchV2Agent
from agents.contract.search_prior import DEFAULT_MODEL, PriorSearchAgent
from agents.contract.view import PlayerView
from continental_env.contract.game import Game
from tests.test_agents import _hide_differently
from tests.test_search_v2 import RULES, SMALL, LiveWorlds, _states, assert_oracle_worlds


class _Scripted:
    """A stand-in network: always the last legal action (rarely strong's move)."""

    def act(self, view: PlayerView) -> int:
        return view.legal_actions[-1]


def _positions(seeds: tuple[int, ...], limit: int):
    count = 0
    for seed in seeds:
        for game in _states(seed):
            if len(PlayerView(game, game.actor).legal_actions) > 1:
                yield game
                count += 1
                if count >= limit:
                    return


def test_names_settings_and_refusals() -> None:
    bot = make_agent("search-prior", 3)
    assert isinstance(bot, PriorSearchAgent) and bot.name == "search-prior"
    assert bot.settings == FROZEN["search@v5"]
    assert bot._prior.name == load_agent(DEFAULT_MODEL, 3).name
    current = make_agent("search", 3)  # the current search is search@v6, named as asked
    assert isinstance(current, PriorSearchAgent) and current.name == "search"
    assert make_agent("search:8", 3).settings.max_worlds == 8
    custom = make_agent(f"search-prior:model={DEFAULT_MODEL}:t_min=3:max_worlds=16", 3)
    assert (custom.settings.t_min, custom.settings.max_worlds) == (3.0, 16)
    for bad, words in (
        ("search-prior:nope=1", "model=NAME or K=V"),
        ("search-prior:t_min=high", "t_min needs a number"),
        ("search-prior:model=no_such_model_here", "no_such_model_here"),
    ):
        with pytest.raises((ValueError, FileNotFoundError), match=words):
            make_agent(bad, 0)
    with pytest.raises(ValueError, match="needs a network"):
        PriorSearchAgent(0)


def test_the_networks_move_comes_first_and_the_search_candidates_follow_once() -> None:
    prior = _Scripted()
    bot = PriorSearchAgent(0, prior, SMALL)
    plain = SearchV2Agent(0, SMALL)
    differs = 0
    for game in _positions((1, 2), 120):
        view = PlayerView(game, game.actor)
        cands = bot.candidates(view)
        assert cands[0] == prior.act(view)
        assert sorted(set(cands)) == sorted(cands)  # each once
        assert set(cands) == {cands[0]} | set(plain.candidates(view))
        differs += cands[0] != plain.candidates(view)[0]
    assert differs > 10  # the stand-in is not strong's move: the test can tell the two apart


def test_the_guard_keeps_the_networks_move_and_overturns_it_only_with_evidence() -> None:
    prior = _Scripted()
    kept = PriorSearchAgent(0, prior, replace(SMALL, margin=1e9))  # no alternative can pass
    loose = PriorSearchAgent(0, prior, replace(SMALL, margin=-1e9, t_min=-1e9))  # the best mean
    changed = 0
    for game in _positions((3,), 60):
        view = PlayerView(game, game.actor)
        assert kept.act(view) == prior.act(view)
        changed += loose.act(PlayerView(game, game.actor)) != prior.act(view)
    assert kept.decisions > 0 and kept.deviations == 0
    assert changed > 0  # the search can overturn the network when the guard lets it


def test_with_the_shipped_network_it_plays_a_game_deterministically() -> None:
    moves = []
    for _ in range(2):
        bot = make_agent("search-prior:max_worlds=4:min_worlds=2", 11)
        game = Game.new(RULES, 4, seed=5)
        others = [make_agent("strong@v1", s) for s in range(4)]
        played = []
        while not game.is_over:
            seat = game.actor
            view = PlayerView(game, seat)
            action = bot.act(view) if seat == 0 else others[seat].act(view)
            played.append(action)
            game.apply(action)
        moves.append(played)
    assert moves[0] == moves[1]
    assert bot.prior_moves > 0


class _Cheater(LiveWorlds, PriorSearchAgent):
    """Positive control: ``search-prior`` whose worlds are the live game (the hidden cards)."""


def test_decisions_do_not_depend_on_hidden_cards() -> None:
    rng = random.Random(4)
    prior = load_agent(DEFAULT_MODEL, 0)
    touchy = replace(SMALL, margin=-1e9, t_min=-1e9)  # play the best mean: touchy on purpose
    compared = cheater_changed = 0
    for game in _positions((3, 4, 5), 400):
        view = PlayerView(game, game.actor)
        if len(PriorSearchAgent(0, prior, SMALL).candidates(view)) < 2:
            continue
        other = _hide_differently(game, game.actor, rng)
        for s in (SMALL, touchy):
            honest = [
                PriorSearchAgent(7, prior, s).act(PlayerView(g, g.actor)) for g in (game, other)
            ]
            assert honest[0] == honest[1]
        cheat = [_Cheater(g, 7, prior, touchy).act(PlayerView(g, g.actor)) for g in (game, other)]
        cheater_changed += cheat[0] != cheat[1]
        compared += 1
        if compared >= 12:
            break
    assert compared >= 12
    assert cheater_changed >= 1  # the comparison would catch a bot that saw the hidden cards


def test_the_v6_oracle_rolls_out_the_real_hands_with_the_networks_move_first() -> None:
    from agents.evaluate import evaluate

    game = next(_positions((6,), 1))
    bot = make_agent("search-oracle-v6:4", 1)
    assert bot.settings == replace(FROZEN["search@v5"], max_worlds=4) and bot.reads_hidden_state
    view = PlayerView(game, game.actor)
    assert bot.candidates(view)[0] == load_agent(DEFAULT_MODEL, 1).act(view)
    assert_oracle_worlds(bot, game)
    with pytest.raises(ValueError, match="reads the true hidden state"):
        evaluate(["search-oracle-v6:2", "strong"], players=4, games=1, rounds=[1])
    played = evaluate(["search-oracle-v6:2", "strong"], players=4, games=1, rounds=[1],
                      allow_oracle=True)  # fmt: skip
    assert played["config"]["agents"][0] == "search-oracle-v6:2" and played["config"]["games"] == 4
