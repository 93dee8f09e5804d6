"""Observations hold no hidden information (DESIGN.md "Observations").

Two states that differ only in cards a player cannot see (the stock's order, opponents' cards
not revealed by a pickup, penalty cards, the shuffle generator) must give that player identical
observations and masks. The variants are built by permuting hidden cards in a ``to_dict`` state
and reloading it. Positive controls: changing the player's own hand or a public card does
change the observation, so the comparison can fail.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pytest
from helpers import act, make_game

import continental_env
from continental_env.cards import card_from_str
from continental_env.contract.game import Game


def observe(game: Game, seat: int) -> dict[str, np.ndarray]:
    raw = continental_env.raw_env(num_players=game.num_players, preset=game.rules)
    raw.reset(seed=0)
    raw.game = game
    return raw.observe(f"player_{seat}")


def same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in ("observation", "action_mask"))


def hidden_cards(data: dict[str, Any], seat: int) -> list[str]:
    """Cards of ``seat``'s hand that no one else has seen it take."""
    known = list(data["known"][seat])
    out = []
    for card in data["hands"][seat]:
        if card in known:
            known.remove(card)
        else:
            out.append(card)
    return out


def swap_hidden(data: dict[str, Any], observer: int, rng: random.Random) -> dict[str, Any]:
    """A copy where opponents' unseen cards trade places with stock cards; stock reshuffled."""
    out = copy.deepcopy(data)
    out["rng"][1][0] ^= 1  # the generator is hidden too
    stock = out["stock"]
    for seat in range(out["num_players"]):
        if seat == observer:
            continue
        for card in hidden_cards(out, seat)[:3]:
            choices = [i for i, c in enumerate(stock) if c != card]
            if not choices:
                continue
            i = rng.choice(choices)
            out["hands"][seat].remove(card)
            out["hands"][seat].append(stock[i])
            stock[i] = card
    rng.shuffle(stock)
    return out


def random_states(preset: str, players: int, seed: int, count: int) -> list[Game]:
    g = Game.new(preset, players, seed=seed)
    rng = random.Random(seed)
    states = []
    for step in range(4000):
        if g.is_over:
            break
        if step % 37 == 0 and g.stock:
            states.append(g.clone())
            if len(states) == count:
                break
        g.apply(rng.choice(g.legal_actions()))
    return states


@pytest.mark.parametrize(
    ("preset", "players"), [("continental", 3), ("continental_us", 4), ("continental_es", 2)]
)
def test_hidden_cards_do_not_change_any_players_observation(preset: str, players: int) -> None:
    rng = random.Random(players)
    changed = 0
    for game in random_states(preset, players, seed=players, count=25):
        data = game.to_dict()
        for seat in range(players):
            variant = swap_hidden(data, seat, rng)
            other = Game.from_dict(variant)
            changed += variant["hands"] != data["hands"]
            assert same(observe(game, seat), observe(other, seat)), (seat, game)
    assert changed, "the variants never differed: the test would prove nothing"


def test_penalty_card_is_hidden_from_everyone_else() -> None:
    # Four seats, seat 1 in turn declines the QH; seat 3 claims it and gets the AS as penalty.
    hands = ["2C 5D 9H KS 3C 4S 8D", "2D 5H 9S KC 3D 4C 8H", "2H 5S 9C KD 3H 4D 8S", "6C 6D"]
    g = make_game(hands=hands, current=1, discard="7C QH", stock_top="AS KH", phase="draw")
    act(g, "draw", "pass", "claim")
    data = g.to_dict()
    assert sorted(hidden_cards(data, 3)) == ["6C", "6D", "AS"]  # the QH is public
    variant = copy.deepcopy(data)
    variant["hands"][3][variant["hands"][3].index("AS")] = "TS"
    variant["stock"][variant["stock"].index("TS")] = "AS"
    other = Game.from_dict(variant)
    for seat in (0, 1, 2):
        assert same(observe(g, seat), observe(other, seat))
    assert not same(observe(g, 3), observe(other, 3))  # seat 3 knows its own penalty card


def test_positive_control_own_hand_change_is_observed() -> None:
    for game in random_states("continental", 3, seed=5, count=5):
        data = game.to_dict()
        seat = game.actor
        variant = copy.deepcopy(data)
        mine = variant["hands"][seat]
        i = next(i for i, c in enumerate(variant["stock"]) if c not in mine)
        mine[0], variant["stock"][i] = variant["stock"][i], mine[0]
        variant["known"][seat] = []
        assert not same(observe(game, seat), observe(Game.from_dict(variant), seat))


def test_positive_control_public_discard_change_is_observed() -> None:
    g = make_game(
        hands=["2C 5D 9H KS 3C 4S 8D", "2D 5H 9S KC 3D 4C 8H"], discard="QH", phase="draw"
    )
    data = g.to_dict()
    variant = copy.deepcopy(data)
    variant["discard"][-1] = "JS"
    variant["seen_discards"] = ["JS"]  # the pile's card was seen discarded
    variant["stock"][variant["stock"].index("JS")] = "QH"
    other = Game.from_dict(variant)
    for seat in (0, 1):
        assert not same(observe(g, seat), observe(other, seat))


def test_positive_control_a_picked_up_card_of_an_opponent_is_observed() -> None:
    # Seat 0 took the QH: seat 1 knows seat 0 holds it, and sees a difference if it were a JS.
    g = make_game(
        hands=["2C 5D 9H KS 3C 4S 8D", "2D 5H 9S KC 3D 4C 8H"], discard="QH", phase="draw"
    )
    act(g, "take")
    data = g.to_dict()
    variant = copy.deepcopy(data)
    variant["hands"][0][variant["hands"][0].index("QH")] = "JS"
    variant["known"][0] = ["JS"]
    variant["stock"][variant["stock"].index("JS")] = "QH"
    assert card_from_str("QH") in Game.from_dict(data).hand_cards(0)
    assert not same(observe(g, 1), observe(Game.from_dict(variant), 1))
