"""The two side games at the web table (``fifteen``, ``knock``), the same checks for both: the
options page offers each with its own bots, and a whole game hides every hidden card and
replays. Each game's scripted moves are in its own ``test_web_<game>.py``."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_web_api import assert_no_hidden_information, play_out  # skipped without [web]

GAMES = ["fifteen", "knock"]
MOST_PLAYERS = {"fifteen": 12, "knock": 6}
# Each game's start options, what its finished game and record show, and options its replays
# refuse.
START = {"fifteen": {"hands": 2}, "knock": {}}
RECORD_OPTIONS = {"fifteen": ("hands", 2), "knock": ("stake", 50)}
BAD_REPLAY_OPTIONS = {"fifteen": {"cheat": 1}, "knock": {"target": 1}}


def finished(game: str, final: dict[str, Any]) -> bool:
    """Whether the page shows the game's end: fifteen's two hands, knock's pot winners."""
    if game == "fifteen":
        return len(final["rounds_played"]) == 2
    return bool(final["winners"])


@pytest.mark.parametrize("game", GAMES)
def test_options_offer_the_game_with_its_own_bots(client, game: str) -> None:
    games = client.get("/api/options").json()["games"]
    assert games[game]["opponents"][:3] == ["random", "greedy", "strong"]  # then its model
    most = MOST_PLAYERS[game]
    assert games[game]["presets"][game] == {"min_players": 2, "max_players": most}
    r = client.post("/api/games", json={"game": game, "opponents": ["search"]})
    assert r.status_code == 400 and f"unknown opponent 'search' for {game}" in r.json()["error"]


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_hides_every_hidden_card_and_replays(client, app, game: str) -> None:
    body = {"game": game, "opponents": ["greedy", "random"], "seed": 5, **START[game]}
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    gid, state = r.json()["id"], r.json()["state"]
    session = app.state.store.get(gid)
    rng = random.Random(4)
    differing = []
    final = play_out(
        client,
        gid,
        state,
        random.Random(6),
        each=lambda s: differing.append(assert_no_hidden_information(session, s, rng)),
    )
    assert len(differing) > 20 and sum(differing) > len(differing) // 2
    assert final["game_over"] and finished(game, final)
    record = client.get(f"/api/games/{gid}/record").json()
    key, value = RECORD_OPTIONS[game]
    assert record["game"] == game and record["options"][key] == value
    rep = client.post("/api/replays", json=record).json()
    last = client.get(f"/api/replays/{rep['id']}/{rep['steps']}").json()
    assert [s["score"] for s in last["seats"]] == [s["score"] for s in final["seats"]]
    if game == "knock":
        assert [s["chips"] for s in last["seats"]] == [s["chips"] for s in final["seats"]]
    bad = dict(record, options=BAD_REPLAY_OPTIONS[game])
    r = client.post("/api/replays", json=bad)
    assert r.status_code == 400 and "options must be a dict" in r.json()["error"]
