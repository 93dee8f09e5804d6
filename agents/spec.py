"""``GameSpec``: how the front ends drive one game without knowing its rules.

A spec says how to create a game from a seed and options, whose turn it is, what a seat's bot may
see, which bots it has (``agents.registry``), how to draw its table, the final scores and which way
is better, and how to recognise a deal (for the duplicate-deal check). The evaluation harness,
training, the terminal table (``agents.play.table``) and the browser table (``continental_web``)
read every game through it; ``agents.games`` lists the registered specs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GameSpec:
    """How front ends drive one game (see the module docstring)."""

    name: str
    unit: str  # what the scores count: "points", "chips"
    higher_is_better: bool
    segment: str  # a scoring period: "round", "hand"
    new_game: Callable[[int, int | None, dict[str, Any]], Any]  # (players, seed, options)
    view: Callable[[Any, int], Any]  # (engine, seat) -> what that seat's bot may see
    agent_names: tuple[str, ...]  # the bots players are offered (``agents.registry.offered``)
    final_scores: Callable[[Any], list[float]]
    segments: Callable[[Any], list[tuple[str, list[float]]]]  # (label, each seat's score)
    deal_number: Callable[[Any], int]  # changes exactly when a new deal starts
    deal_fingerprint: Callable[[Any], str]  # a digest of the deal now on the table
    check_options: Callable[[int, dict[str, Any]], None]  # ValueError for a bad table
    option_types: dict[str, type] = field(default_factory=dict)
    terminal: str = ""  # module whose main(argv) is its terminal game ("": agents.play)
    # Who ended each finished round (a seat, or None when the round ran out without a closer);
    # None for games without closers.
    closers: Callable[[Any], list[int | None]] | None = None
    label: str = ""  # what a player reads for the game
    # The table drawn from a seat (None: every hand shown): (engine, seat, names) -> text.
    render: Callable[[Any, int | None, Sequence[str]], str] | None = None
    # preset -> (fewest, most players); a game without presets has one, named after it.
    player_ranges: Callable[[], dict[str, tuple[int, int]]] | None = None
    # The frozen version a bot name plays (contract: ``strong`` -> ``strong@v1``), for reports;
    # None: a name is its own version.
    version_of: Callable[[str], str] | None = None
    # A game whose options are a rules object (contract): (options, default preset, default
    # rounds) -> (the options a game is created with, the rules); None: options used as given.
    rules_options: (
        Callable[[dict[str, Any], Any, Sequence[int] | None], tuple[dict[str, Any], Any]] | None
    ) = None
    # The report config key that names the rules played ("preset"), printed instead of the
    # options; "": the options are printed.
    rules_key: str = ""
    # Plots: a segment's tick label (contract: the round and its contract, "3\n1T+1R") and the
    # axis label under such ticks; None: plain numbers, "<segment> of the game".
    segment_tick: Callable[[int], str] | None = None
    segment_axis: str = ""
    # Played under a rules preset (``continental_env.rules``: ``--preset``, ``--rounds``) with
    # training's learner seat ``agents.train.single_agent``; False: key=value engine options
    # (``--game-options``) and ``agents.train.side_single_agent``.
    rule_presets: bool = False
    # Many games per call (``agents.evaluate.batched``): (num_games, players, a game from
    # ``new_game``) -> a batch whose ``play_out``/``export`` play and read them, and the bot
    # names it decides itself; None: every game is played one decision at a time in Python.
    new_batch: Callable[[int, int, Any], Any] | None = None
    batch_bots: tuple[str, ...] = ()
    # The variance-reduction estimator's recorder (``agents.evaluate.variance``): attached to a new
    # game, it sums each seat's control-variate corrections at chance events (``corrections``,
    # ``events``, ``model.label``); None: the game has no chance model, only the plain figure.
    chance_recorder: Callable[[Any], Any] | None = None

    def sign(self) -> int:
        """+1 when higher scores are better, -1 when lower are."""
        return 1 if self.higher_is_better else -1

    def make_agent(self, name: str, seed: int | None = None) -> Any:
        """A bot of this game by registry name (``agents.registry.make_agent``)."""
        from agents.registry import make_agent

        return make_agent(name, seed, game=self.name)

    def parse_options(self, pairs: Sequence[str]) -> dict[str, Any]:
        """``key=value`` texts into an options dict (``none`` is None); ValueError if unknown."""
        out: dict[str, Any] = {}
        for pair in pairs:
            key, sep, text = pair.partition("=")
            key = key.strip()
            if not sep or key not in self.option_types:
                known = ", ".join(self.option_types) or "none"
                raise ValueError(f"bad option {pair!r} for the {self.name} game; known: {known}")
            out[key] = _option_value(key, self.option_types[key], text.strip())
        return out


def _option_value(key: str, kind: type, text: str) -> Any:
    """One option's value from its text (``none`` is None); ValueError naming it."""
    if text.lower() == "none":
        return None
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"option {key}={text!r} must be an integer") from None
    if kind is list:
        try:
            return [int(x) for x in text.replace(",", " ").split()]
        except ValueError:
            raise ValueError(f"option {key}={text!r} must list integers") from None
    return text


def digest(*parts: Sequence[int] | Sequence[Sequence[int]]) -> str:
    """A short stable digest of card lists (for deal fingerprints)."""
    text = "|".join(",".join(map(str, p)) for p in parts)
    return hashlib.sha1(text.encode()).hexdigest()[:16]
