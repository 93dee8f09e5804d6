"""The leaderboard of the side games: ``continental leaderboard --game fifteen|knock``.

The side games' bots play under their game's options (``--set``), in chips (higher is better);
the deals reproduce from the seed; a name, model or option the game does not have is refused in
one line before any game.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.evaluate import leaderboard as lb
from agents.evaluate.deals import derive_seed, play_game
from agents.evaluate.leaderboard import leaderboard, main, markdown

MODELS = Path(__file__).resolve().parents[1] / "agents" / "models"
ONE_HAND = {"fifteen": {"hands": 1}, "knock": {"max_hands": 1}}
SET_ONE_HAND = {"fifteen": "hands=1", "knock": "max_hands=1"}


@pytest.mark.parametrize("game", ["fifteen", "knock"])
def test_greedy_ranks_above_random_in_chips(game: str) -> None:
    report = leaderboard(
        ["random", "greedy"], deals=4, players=4, seed=3, game=game, options=ONE_HAND[game]
    )
    cfg = report["config"]
    assert cfg["game"] == game and cfg["unit"] == "chips" and cfg["higher_is_better"]
    assert cfg["options"] == ONE_HAND[game] and "preset" not in cfg
    rows = report["agents"]
    # Higher chips rank first: the best mean is at the top.
    assert report["ranking"] == ["greedy", "random"]
    assert rows["greedy"]["mean_points"] > rows["random"]["mean_points"]
    nxt = rows["greedy"]["vs_next"]
    assert nxt["agent"] == "random" and nxt["mean_diff"] > 0 and nxt["separated"]
    assert nxt["mean_diff"] == pytest.approx(
        rows["greedy"]["mean_points"] - rows["random"]["mean_points"]
    )
    # The better total wins: greedy takes the larger share of the wins.
    assert rows["greedy"]["win_rate"] > rows["random"]["win_rate"]
    assert rows["greedy"]["openskill"]["ordinal"] > rows["random"]["openskill"]["ordinal"]
    # A side game's names are their own versions (no contract-game strong@v1).
    assert rows["greedy"]["version"] == "greedy"
    text = markdown(report)
    assert f"game `{game}`" in text and "mean chips" in text and "higher is better" in text
    assert text.index("`greedy`") < text.index("`random`")


def test_the_fifteen_game_is_zero_sum_and_every_game_is_counted() -> None:
    report = leaderboard(
        ["random", "greedy", "strong"], deals=3, players=3, seed=8, game="fifteen",
        options={"hands": 1},
    )  # fmt: skip
    rows = report["agents"]
    assert sum(r["games"] for r in rows.values()) == report["config"]["games"] * 3
    # One table of the three, every seat once a game: the chips of a game sum to zero.
    assert sum(r["mean_points"] for r in rows.values()) == pytest.approx(0.0)
    total = sum(r["win_rate"] * r["games"] for r in rows.values())
    assert total == pytest.approx(report["config"]["games"])


@pytest.mark.parametrize("game", ["fifteen", "knock"])
def test_the_deals_reproduce_from_the_seed_at_any_jobs(game: str) -> None:
    args = (["random", "greedy", "strong"], 2)
    kwargs = {"players": 3, "seed": 21, "game": game, "options": ONE_HAND[game]}
    one = leaderboard(*args, jobs=1, **kwargs)
    two = leaderboard(*args, jobs=2, **kwargs)
    for report in (one, two):
        report.pop("timing"), report["config"].pop("jobs")
    assert one == two
    other = leaderboard(*args, jobs=1, **{**kwargs, "seed": 22})
    assert other["agents"] != one["agents"]  # the seed matters


@pytest.mark.parametrize("game", ["fifteen", "knock"])
def test_every_table_and_rotation_of_a_deal_gets_the_same_cards(game: str) -> None:
    lineups = lb.tables(["random", "greedy", "strong"], 2)
    tasks = lb._game_tasks(40, range(2), lineups, game, ONE_HAND[game], 2)
    assert len(tasks) == 2 * 3 * 2  # deals x tables x rotations
    dealt: dict[int, set[str]] = {}
    for seed, deal, t, r, names, g, options, players in tasks:
        agent_seeds = [derive_seed(seed, deal, t, r, s) for s in range(players)]
        game_seed = derive_seed(seed, "deal", deal)
        result = play_game(names, game_seed, agent_seeds, g, options)
        dealt.setdefault(deal, set()).add(result["fingerprints"][0])
        # The worker's game is this game.
        task = (seed, deal, t, r, names, g, options, players)
        assert lb._play_one(task)["scores"] == list(result["scores"])
    assert all(len(prints) == 1 for prints in dealt.values())  # one deck per deal
    assert dealt[0] != dealt[1]  # and another deck for the next deal


def test_the_command_writes_side_game_reports(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from agents import cli

    out, md, png = tmp_path / "k.json", tmp_path / "k.md", tmp_path / "k.png"
    argv = ["leaderboard", "--game", "knock", "--set", "max_hands=1", "--agents", "greedy,random"]
    argv += ["--players", "2", "--deals", "2", "--no-progress", "--json", str(out)]
    argv += ["--markdown", str(md), "--plot", str(png)]
    assert cli.main(argv) == 0
    report = json.loads(out.read_text())
    assert report["config"]["game"] == "knock" and report["config"]["options"] == {"max_hands": 1}
    assert md.read_text() == markdown(report) and "mean chips" in md.read_text()
    assert png.stat().st_size > 1000
    assert "| `greedy` |" in capsys.readouterr().out


@pytest.fixture
def no_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any game played fails the test: a refusal must come before the first game."""

    def played(*args: object, **kwargs: object) -> None:
        raise AssertionError("a game was played before the request was refused")

    monkeypatch.setattr(lb, "_play_one", played)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        # An agent the game does not have (search is the contract game's).
        (["--game", "fifteen", "--agents", "greedy,search"], "unknown agent 'search' for the"),
        (["--game", "knock", "--agents", "nope,greedy"], "unknown agent 'nope'"),
        # A game option the game does not take.
        (["--game", "fifteen", "--set", "stake=50", "--agents", "greedy,random"], "stake=50"),
        (["--game", "knock", "--set", "hands=1", "--agents", "greedy,random"], "hands=1"),
        (["--game", "knock", "--set", "max_hands", "--agents", "greedy,random"], "max_hands"),
        (["--game", "knock", "--set", "stake=lots", "--agents", "greedy"], "integer"),
        (["--game", "knock", "--preset", "continental", "--agents", "greedy"], "contract game"),
        (["--game", "poker", "--agents", "greedy"], "poker"),
        # A model of another game, or of another table size.
        (
            ["--game", "knock", "--agents", f"greedy,ppo:{MODELS / 'ppo_continental_4p.zip'}"],
            "not knock_v0",
        ),
        (
            ["--game", "knock", "--agents", f"greedy,ppo:{MODELS / 'ppo_fifteen_4p.zip'}"],
            "not knock_v0",
        ),
        (
            [
                "--game",
                "fifteen",
                "--players",
                "3",
                "--agents",
                f"greedy,ppo:{MODELS / 'ppo_fifteen_4p.zip'}",
            ],
            "at 4 players",
        ),
        (["--game", "knock", "--players", "1", "--agents", "greedy"], "--players 1"),
    ],
)
def test_bad_input_is_one_line_before_any_game(
    argv: list[str],
    message: str,
    no_game: None,
    capsys,  # type: ignore[no-untyped-def]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--deals", "2", "--no-progress"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err, err
    assert len(err.splitlines()) == 1


def test_the_function_refuses_an_option_of_another_game(no_game: None) -> None:
    with pytest.raises(ValueError, match=r"\['hands'\] are not the knock game's"):
        leaderboard(["greedy", "random"], 2, game="knock", options={"hands": 1})
    with pytest.raises(ValueError, match="unknown game 'poker'"):
        leaderboard(["greedy", "random"], 2, game="poker")


def test_evaluate_refuses_a_side_model_at_another_table_size_before_any_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agents.evaluate import deals, harness

    def played(*args: object, **kwargs: object) -> None:
        raise AssertionError("a game was played before the request was refused")

    monkeypatch.setattr(deals, "play_seating", played)
    monkeypatch.setattr(harness, "_run_deals", played)
    model = f"ppo:{MODELS / 'ppo_knock_4p.zip'}"
    with pytest.raises(ValueError, match=r"trained for knock_v\d at 4 players, not knock_v\d at 3"):
        harness.evaluate([model, "greedy"], players=3, games=1, game="knock")
