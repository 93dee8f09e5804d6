"""The knock bots' strategy: the greedy bot on scripted positions and at an all-greedy table,
and the registry's knock names (the checks both side games share: legal play, views, hidden
cards, are in ``test_side_agents.py``)."""

from __future__ import annotations

from knock_helpers import act, knock_game, legal_texts
from side_helpers import play_bots as play

from agents.knock import view_for
from agents.knock.greedy import KnockGreedyAgent, hand_value
from continental_env.cards import parse_cards, to_counts
from continental_env.knock.game import Game

KNOCK5 = "2H 3H 4H 5H 6C 6D 6S AS 3C AD"
LOOSE1 = "KC QD JS 9H 7C 5D 3S TC 8D 6H"
LOOSE2 = "2C 4D 6S 8H TD QC AH 3S 5C 9D"
LOOSE3 = "KS KH 7S 7H 4C 4H 2S 8C JC 9C"


def test_greedy_knocks_and_ends_hands_at_an_all_greedy_table() -> None:
    g = play(Game.new(num_players=4, seed=3, max_hands=6), ["greedy"] * 4)
    ends = [h["end"] for h in g.hand_history]
    assert ends and sum(e in ("knock", "rummy", "color", "continental") for e in ends) >= 3


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
