"""The ``strong`` bots of the fifteen-card and knock games: legal play, the strategy on scripted
positions, and no decision that depends on hidden cards (with a peeking bot as positive control).
"""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest
from fifteen_helpers import fifteen_game
from knock_helpers import knock_game
from side_helpers import swap_hidden as swap_fifteen
from side_helpers import swap_hidden as swap_knock

from agents import make_agent
from agents.fifteen import FifteenView
from agents.fifteen.strong import FifteenStrongAgent, live_counts, outs
from agents.games import game_spec
from agents.knock import KnockView
from agents.knock.greedy import KnockGreedyAgent
from agents.knock.strong import KnockStrongAgent, card_value, expected_saving
from continental_env.cards import parse_cards, to_counts
from continental_env.fifteen.game import Game as FifteenGame
from continental_env.knock.game import DRAW, TAKE
from continental_env.knock.game import Game as KnockGame
from continental_env.melds import best_lays

GAMES = {
    "fifteen": (FifteenGame, FifteenView, swap_fifteen),
    "knock": (KnockGame, KnockView, swap_knock),
}
OPP15 = "2D 4D 6D TD QD 2S 8S TS QS KS 3C 7C KC 5H 9H"
LOOSE10 = "KC QD JS 9H 7C 5D 3S TC 8D 6H"


@pytest.mark.parametrize("game", ["fifteen", "knock"])
@pytest.mark.parametrize("players", [2, 4, 6])
def test_strong_plays_legal_games_and_is_registered(game: str, players: int) -> None:
    engine, view_cls, _swap = GAMES[game]
    assert "strong" in game_spec(game).agent_names
    options = {"max_turns_per_hand": 40, "max_hands": 3}
    g = engine.new(num_players=players, seed=players, **options)
    names = ["strong" if s % 2 == 0 else "greedy" for s in range(players)]
    bots = [make_agent(n, s, game=game) for s, n in enumerate(names)]
    assert bots[0].name == "strong"
    while not g.is_over:
        action = bots[g.actor].act(view_cls(g, g.actor))
        assert action in g.legal_actions()
        g.apply(action)
    assert g.is_over


# ----------------------------------------------------------------------------- knock strategy


def test_knock_strong_keeps_the_ace_that_lets_it_knock_where_greedy_sheds_it() -> None:
    hand = "2H 3H 4H 6C 6D 6S 8S 9S TS AD 9C"  # 11 cards after drawing; loose AD and 9C
    g = knock_game(hands=[hand, LOOSE10], current=0, phase="play")
    view = KnockView(g, 0)
    assert g.action_to_str(KnockGreedyAgent(0).act(view)) == "discard AD"  # 15 > 9
    assert g.action_to_str(KnockStrongAgent(0).act(view)) == "discard 9C"  # AD counts 1: knock


def test_knock_strong_announces_like_greedy() -> None:
    rummy = "AH 2H 3H 5C 5D 5S 9C 9D 9H 9S"
    g = knock_game(hands=[rummy, LOOSE10], current=0)
    assert g.action_to_str(KnockStrongAgent(0).act(KnockView(g, 0))) == "rummy"
    g = knock_game(hands=["2H 3H 4H 5H 6C 6D 6S AS 3C AD", LOOSE10], current=0)
    assert g.action_to_str(KnockStrongAgent(0).act(KnockView(g, 0))) == "knock"


def test_knock_expected_saving_counts_live_draws_only() -> None:
    hand = to_counts(parse_cards("2H 3H 4H 6C 6D 6S 8S 9S 7D 8D"))  # loose 7D 8D: a draw
    _dead, lays = best_lays(hand)
    live = [2] * 52 + [4]
    for c in range(53):
        live[c] -= hand[c]
    with_draw = expected_saving(hand, lays, live, sum(live))
    dead = list(live)
    for c in parse_cards("6D 9D"):  # the draw's completers, and the jokers, all gone
        dead[c] = 0
    dead[52] = 0
    assert expected_saving(hand, lays, dead, sum(dead)) < with_draw
    assert card_value(parse_cards("AS")[0]) == 15 and card_value(52) == 20


def test_knock_buy_back_weighs_the_pot_against_the_cost() -> None:
    def view(cost: int, pot: int, players_in: int) -> Any:
        return SimpleNamespace(buy_cost=cost, pot=pot, players_in=players_in)

    assert KnockStrongAgent().buy_pays(view(50, 300, 3))
    assert not KnockStrongAgent().buy_pays(view(200, 300, 3))
    assert KnockStrongAgent().buy_pays(view(100, 700, 3))  # 1/6 x 800 > 100
    assert not KnockStrongAgent().buy_pays(view(100, 400, 3))  # 1/6 x 500 < 100
    assert not KnockStrongAgent().buy_pays(view(50, 300, 4))  # 1/8 x 350 < 50


# ----------------------------------------------------------------------------- fifteen strategy


def test_fifteen_strong_breaks_the_draw_whose_cards_are_dead() -> None:
    # Four sequences, then two two-card draws: 5H 6H (needs 4H or 7H) and 9C TC (8C or JC).
    hand = "AC 2C 3C 4D 5D 6D 7S 8S 9S JH QH KH 5H 6H 9C TC"
    g = fifteen_game(hands=[hand, OPP15], current=0, phase="play", discard="4H 4H 7H 7H 2S")
    view = FifteenView(g, 0)
    greedy = g.action_to_str(make_agent("greedy", 0, game="fifteen").act(view))
    strong = g.action_to_str(FifteenStrongAgent(0).act(view))
    assert greedy == "discard 9C"  # a tie for greedy, broken by the lowest card id
    assert strong in ("discard 5H", "discard 6H")  # every 4H and 7H lies in the pile


def test_fifteen_live_counts_and_outs() -> None:
    g = fifteen_game(
        hands=["5H 6H 9C TC JD QD KD AS 2S 3S 4C 5C 6C 8H JK", OPP15], discard="7H 7H 2D"
    )
    live, unseen = live_counts(FifteenView(g, 0))
    h = parse_cards
    # 7H: both copies under the top card; 2D: the top card is takeable and the opponent's is hidden
    assert live[h("7H")[0]] == 0 and live[h("2D")[0]] == 2
    assert live[h("5H")[0]] == 1 and unseen == sum(live)
    hand = to_counts(h("5H 6H"))
    assert outs(hand, [2] * 53) > outs(hand, [0] * 53) == 0


# ----------------------------------------------------------------------------- hidden information


class Peeker:
    """A positive control: decides on the stock's top card, which no seat may see."""

    def __init__(self, game: Any) -> None:
        self.game = game

    def act(self, view: Any) -> int:
        legal = view.legal_actions
        if view.phase == "draw" and TAKE in legal and DRAW in legal:
            return TAKE if self.game.stock[-1] % 2 == 0 else DRAW
        return legal[0]


def _decisions(game: str, g: Any, seat: int, peek: bool) -> list[int]:
    _engine, view_cls, _swap = GAMES[game]
    view = view_cls(g, seat)
    out = [make_agent("strong", 7, game=game).act(view)]
    if peek:
        out.append(Peeker(g).act(view))
    return out


@pytest.mark.parametrize("game", ["fifteen", "knock"])
def test_strong_decisions_ignore_hidden_cards_and_a_peeker_is_caught(game: str) -> None:
    engine, view_cls, swap = GAMES[game]
    rng = random.Random(11)
    g = engine.new(num_players=3, seed=11, max_turns_per_hand=80)
    checked = caught = 0
    for _ in range(160):
        if g.is_over:
            break
        seat = g.actor
        if g.phase in ("draw", "play"):
            variant = engine.from_dict(swap(g.to_dict(), seat, rng))
            assert _decisions(game, g, seat, False) == _decisions(game, variant, seat, False)
            checked += 1
            if _decisions(game, g, seat, True) != _decisions(game, variant, seat, True):
                caught += 1  # the same comparison notices a bot that reads the stock
        g.apply(make_agent("strong", 0, game=game).act(view_cls(g, seat)))
    assert checked > 50 and caught > 0


def test_side_game_reports_name_their_bots_without_contract_versions() -> None:
    from agents.evaluate import evaluate, format_report

    report = evaluate(
        agents=["strong", "greedy"], players=4, games=1, seed=1, game="knock",
        options={"max_hands": 1}, progress=False,
    )  # fmt: skip
    assert report["config"]["versions"] == {"strong": "strong", "greedy": "greedy"}
    assert "strong@v1" not in format_report(report)
