"""The game registry (``agents.games``): every registered game is driven the same way."""

from __future__ import annotations

import pytest

from agents import make_agent
from agents.games import GAMES, game_names, game_spec

SMALL = {"contract": {"rounds": [1]}, "fifteen": {"hands": 1, "max_turns_per_hand": 40}}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_every_game_plays_through_its_spec_alone(name: str) -> None:
    spec = game_spec(name)
    assert spec.name == name and name in game_names()
    spec.check_options(3, SMALL[name])
    game = spec.new_game(3, 5, SMALL[name])
    again = spec.new_game(3, 5, SMALL[name])
    assert spec.deal_fingerprint(game) == spec.deal_fingerprint(again)
    bots = [spec.make_agent(n, s) for s, n in enumerate(["greedy", "random", "random"])]
    deals = {spec.deal_number(game)}
    while not game.is_over:
        seat = game.actor
        game.apply(bots[seat].act(spec.view(game, seat)))
        deals.add(spec.deal_number(game))
    scores = spec.final_scores(game)
    assert len(scores) == 3 and spec.segments(game)
    assert all(len(values) == 3 for _label, values in spec.segments(game))


def test_directions_and_units() -> None:
    assert game_spec("contract").higher_is_better is False and game_spec("contract").sign() == -1
    assert game_spec("fifteen").higher_is_better is True and game_spec("fifteen").unit == "chips"


def test_unknown_games_and_options_are_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown game 'poker'; choose one of contract, fifteen"):
        game_spec("poker")
    spec = game_spec("fifteen")
    assert spec.parse_options(["target=100", "hands=none"]) == {"target": 100, "hands": None}
    with pytest.raises(ValueError, match="bad option 'stake=5'"):
        spec.parse_options(["stake=5"])
    with pytest.raises(ValueError, match="must be an integer"):
        spec.parse_options(["target=lots"])
    with pytest.raises(ValueError, match="num_players"):
        spec.check_options(13, {})
    with pytest.raises(ValueError, match="target"):
        spec.check_options(4, {"target": 0})
    with pytest.raises(ValueError, match="unknown preset"):
        game_spec("contract").check_options(4, {"preset": "rummy"})
    assert game_spec("contract").parse_options(["rounds=1,2"]) == {"rounds": [1, 2]}


def test_make_agent_goes_through_the_registry() -> None:
    assert set(GAMES) >= {"contract", "fifteen"}
    assert type(make_agent("greedy", 0, game="fifteen")).__name__ == "FifteenGreedyAgent"
    assert type(make_agent("greedy", 0, game="contract")).__name__ == "GreedyAgent"
