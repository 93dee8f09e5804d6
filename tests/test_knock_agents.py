"""The knock bots: legal play at every table size, the greedy strategy on scripted positions,
and no decision that depends on hidden cards (with a positive control)."""

from __future__ import annotations

import copy
import random

import pytest
from knock_helpers import act, knock_game, legal_texts
from side_helpers import swap_hidden

from agents import make_agent
from agents.knock import KnockView, view_for
from agents.knock.greedy import KnockGreedyAgent, hand_value
from continental_env.cards import parse_cards, to_counts
from continental_env.knock.game import Game

KNOCK5 = "2H 3H 4H 5H 6C 6D 6S AS 3C AD"
LOOSE1 = "KC QD JS 9H 7C 5D 3S TC 8D 6H"
LOOSE2 = "2C 4D 6S 8H TD QC AH 3S 5C 9D"
LOOSE3 = "KS KH 7S 7H 4C 4H 2S 8C JC 9C"


def play(game: Game, names: list[str], seed: int = 0) -> Game:
    bots = [make_agent(n, seed + s, game="knock") for s, n in enumerate(names)]
    while not game.is_over:
        action = bots[game.actor].act(view_for(game))
        assert action in game.legal_actions()
        game.apply(action)
    return game


@pytest.mark.parametrize("players", [2, 4, 6])
def test_bots_play_legal_games_at_every_table_size(players: int) -> None:
    names = ["greedy" if s % 2 == 0 else "random" for s in range(players)]
    g = play(Game.new(num_players=players, seed=players, max_turns_per_hand=30, max_hands=3), names)
    assert g.is_over and sum(g.chips) == 0


def test_greedy_knocks_and_ends_hands_at_an_all_greedy_table() -> None:
    g = play(Game.new(num_players=4, seed=3, max_hands=6), ["greedy"] * 4)
    ends = [h["end"] for h in g.hand_history]
    assert ends and sum(e in ("knock", "rummy", "color", "continental") for e in ends) >= 3


def test_make_agent_knows_the_knock_bots_and_refuses_others() -> None:
    assert make_agent("greedy", 1, game="knock").name == "greedy"
    assert make_agent("random", 1, game="knock").name == "random"
    assert make_agent("strong", 1, game="knock").name == "strong"
    with pytest.raises(ValueError, match="knock game"):
        make_agent("search", 1, game="knock")


def bot_says(g: Game) -> str:
    return g.action_to_str(KnockGreedyAgent(0).act(view_for(g)))


def test_greedy_knocks_as_soon_as_allowed_and_prefers_the_bigger_bonus() -> None:
    assert bot_says(knock_game(hands=[KNOCK5, LOOSE1], current=0)) == "knock"
    rummy = "AH 2H 3H 5C 5D 5S 9C 9D 9H 9S"  # also a knock (deadwood 0): rummy pays more
    assert bot_says(knock_game(hands=[rummy, LOOSE1], current=0)) == "rummy"
    straight = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH"  # rummy, color and continental: the pot
    g = knock_game(hands=[straight, LOOSE1], current=0)
    assert {"rummy", "color", "continental"} <= set(legal_texts(g))
    assert bot_says(g) == "continental"


def test_greedy_takes_the_discard_when_it_lowers_deadwood_else_draws() -> None:
    hand = "2H 3H 4H 6C 6D 6S 9C 9D KS QS"  # deadwood 38
    g = knock_game(hands=[hand, LOOSE1], current=0, discard="9H")
    assert bot_says(g) == "take"  # 9H completes the nines: discard KS -> 10
    g = knock_game(hands=[hand, LOOSE1], current=0, discard="KD")
    assert bot_says(g) == "draw"  # KD lowers nothing
    act(g, "draw")
    assert bot_says(g).startswith("discard")


def test_greedy_announces_with_a_discard_and_sheds_its_worst_card() -> None:
    g = knock_game(hands=["AH 2H 3H 5C 5D 5S 9C 9D 9H KS", LOOSE1], stock_top="9S", current=0)
    act(g, "draw")
    assert bot_says(g) == "rummy KS"
    g = knock_game(hands=["AH 2H 3H 5C 5D 5S 9C 9D QS KS", LOOSE1], stock_top="2D", current=0)
    act(g, "draw")
    assert bot_says(g) in ("discard KS", "discard QS")  # the highest deadwood goes


def test_greedy_buys_back_when_it_pays() -> None:
    g = knock_game(hands=[KNOCK5, LOOSE1, LOOSE2, LOOSE3], current=0, scores=[0, 0, 20, 10])
    act(g, "knock")
    assert g.phase == "buy" and g.current == 2
    view = view_for(g)
    assert view.buy_cost == 50 and view.pot == 210 and view.buy_back_total == 78
    assert bot_says(g) == "buy"  # 50 <= 210 / 4
    act(g, "buy")
    g2 = knock_game(
        hands=[KNOCK5, LOOSE1, LOOSE2, LOOSE3], current=0, scores=[0, 0, 20, 10], buys=[0, 0, 2, 0]
    )
    act(g2, "knock")
    assert bot_says(g2) == "pass"  # 200 > 210 / 4


def test_hand_value_is_deadwood_then_knock_deadwood() -> None:
    assert hand_value(to_counts(parse_cards("AS 2H"))) == (17, 3)
    assert hand_value(to_counts(parse_cards("AS 2S 3S"))) == (0, 0)


# ----------------------------------------------------------------------------- hidden information


def decisions(game: Game, seat: int) -> list[int]:
    view = KnockView(game, seat)
    return [make_agent(n, 7, game="knock").act(view) for n in ("greedy", "random")]


def test_bot_decisions_ignore_hidden_cards_with_a_positive_control() -> None:
    rng = random.Random(5)
    g = Game.new(num_players=3, seed=5, max_turns_per_hand=80)
    checked = changed = 0
    for _ in range(150):
        if g.is_over:
            break
        seat = g.actor
        if g.phase in ("draw", "play"):
            data = g.to_dict()
            variant = Game.from_dict(swap_hidden(data, seat, rng))
            assert decisions(g, seat) == decisions(variant, seat)
            checked += 1
            # Positive control: the same comparison notices a change in the bot's own hand.
            own = copy.deepcopy(data)
            mine = own["hands"][seat]
            i = next((k for k, c in enumerate(own["stock"]) if c not in mine), None)
            if i is not None:
                j = max(
                    (k for k in range(len(mine)) if mine[k] not in own["known"][seat]),
                    key=lambda k: mine[k],
                )
                mine[j], own["stock"][i] = own["stock"][i], mine[j]
                mine.sort()
                if decisions(g, seat) != decisions(Game.from_dict(own), seat):
                    changed += 1
        g.apply(make_agent("greedy", 0, game="knock").act(view_for(g)))
    assert checked > 50 and changed > 0


def test_the_view_holds_no_reference_to_the_game() -> None:
    g = Game.new(num_players=2, seed=1)
    view = KnockView(g, 1)  # seat 1 plays first (seat 0 deals)
    assert all(not isinstance(v, Game) for v in vars(view).values())
    assert view.hand == g.hands[1] and view.legal_actions == g.legal_actions()
    assert KnockView(g, 0).legal_actions == []
