"""The two side games' bots (``fifteen``, ``knock``), the same checks for both: legal play at
every table size, a view that holds no reference to the game, and no decision that depends on
hidden cards (with a positive control). Each game's strategy tests are in its own file."""

from __future__ import annotations

import copy
import importlib
import random
from typing import Any

import pytest
from side_helpers import play_bots as play
from side_helpers import swap_hidden

from agents import make_agent

GAMES = ["fifteen", "knock"]
VIEWS = {"fifteen": "FifteenView", "knock": "KnockView"}
ZERO_SUM = {"fifteen": "scores", "knock": "chips"}  # each game's running chips


def engine(game: str) -> Any:
    return importlib.import_module(f"continental_env.{game}.game").Game


def view_class(game: str) -> Any:
    return getattr(importlib.import_module(f"agents.{game}"), VIEWS[game])


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        *(("fifteen", p, (60, 2)) for p in (2, 5, 12)),
        *(("knock", p, (30, 3)) for p in (2, 4, 6)),
    ],
)
def test_bots_play_legal_games_at_every_table_size(
    game: str, players: int, options: tuple[int, int]
) -> None:
    turns, hands = options
    names = ["greedy" if s % 2 == 0 else "random" for s in range(players)]
    new = engine(game).new(
        num_players=players, seed=players, max_turns_per_hand=turns, max_hands=hands
    )
    g = play(new, names)
    assert g.is_over and sum(getattr(g, ZERO_SUM[game])) == 0


@pytest.mark.parametrize(
    ("game", "words"), [("fifteen", "fifteen-card game"), ("knock", "knock game")]
)
def test_make_agent_knows_the_games_bots_and_refuses_others(game: str, words: str) -> None:
    assert make_agent("greedy", 1, game=game).name == "greedy"
    assert make_agent("random", 1, game=game).name == "random"
    assert make_agent("strong", 1, game=game).name == "strong"
    with pytest.raises(ValueError, match=words):
        make_agent("search", 1, game=game)


def decisions(game: Any, seat: int) -> list[int]:
    kind = game.setup.GAME
    view = view_class(kind)(game, seat)
    return [make_agent(n, 7, game=kind).act(view) for n in ("greedy", "random")]


@pytest.mark.parametrize(("game", "steps"), [("fifteen", 120), ("knock", 150)])
def test_bot_decisions_ignore_hidden_cards_with_a_positive_control(game: str, steps: int) -> None:
    Game = engine(game)
    view_for = importlib.import_module(f"agents.{game}").view_for
    rng = random.Random(5)
    g = Game.new(num_players=3, seed=5, max_turns_per_hand=80)
    checked = changed = 0
    for _ in range(steps):
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
        g.apply(make_agent("greedy", 0, game=game).act(view_for(g)))
    assert checked > 50 and changed > 0


@pytest.mark.parametrize("game", GAMES)
def test_the_view_holds_no_reference_to_the_game(game: str) -> None:
    Game, View = engine(game), view_class(game)
    g = Game.new(num_players=2, seed=1)
    view = View(g, 1)  # seat 1 plays first (seat 0 deals)
    assert all(not isinstance(v, Game) for v in vars(view).values())
    assert view.hand == g.hands[1] and view.legal_actions == g.legal_actions()
    if game == "fifteen":  # draw or take the up-card
        assert view.legal_actions == [0, 1]
    assert View(g, 0).legal_actions == []
