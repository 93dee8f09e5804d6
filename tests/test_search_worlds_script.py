"""``scripts/search_worlds.py``: how a search spends its worlds, counted per searched decision."""

from __future__ import annotations

import pytest

from tests.helpers import load_script


def test_world_counts_add_up_and_respect_the_cap() -> None:
    script = load_script("search_worlds")
    row = script.worlds_of("search@v4:4", games=1, seed=7)
    assert row["searched"] > 0 and sum(row["worlds"].values()) == row["searched"]
    assert max(row["worlds"]) <= 4 and set(row["worlds"]) <= {2, 4}  # screen at 2, cap at 4
    # A decision ends undecided only when the cap stopped it.
    assert row["undecided"] <= row["at_cap"] <= row["searched"]
    assert 0 <= row["changed"] <= row["searched"] and row["cpu_s_per_game"] > 0
    assert script.worlds_of("search@v4:4", games=1, seed=7)["worlds"] == row["worlds"]


def test_a_bot_outside_the_search_v2_family_is_refused() -> None:
    script = load_script("search_worlds")
    with pytest.raises(ValueError, match="'strong@v1' is not a search-v2 family bot"):
        script.worlds_of("strong@v1", games=1, seed=7)
    with pytest.raises(SystemExit):
        script.main(["search@v4", "--games", "0"])
