"""``search-prior``: the determinized search guarding a network's move instead of ``strong``'s.

``search@v5`` (``agents.contract.search_adaptive``) keeps ``strong@v1``'s move unless sampled
worlds show an alternative clearly better. The self-play networks play better than ``strong@v1``
(about 45 points a game ahead of it, against the search's 24), so this bot puts a network's move
first and lets the same search question it:

1. **Candidates.** The network's move (deterministic: its highest legal logit), then every
   candidate ``search@v5`` would compare at the position (``strong@v1``'s move and its
   alternatives), each once.
2. **Worlds and rollouts** are ``search@v5``'s: worlds sampled from the seat's public information
   and resampled by belief, every candidate applied in the same worlds and the round played out
   by ``strong@v1`` at every seat on the compiled core.
3. **The guard** keeps the network's move unless another candidate's paired per-world gain over
   it exceeds the margin (1 point) with a t-statistic of at least 2; a decision where only the
   network's move is a candidate costs no search.

The network sees the seat's observation (its own hand and the public record) and nothing else,
as it does at a table; the worlds are sampled from the view alone, so the bot reads no hidden
state. ``search@v6`` is this bot frozen (``FROZEN_PRIOR``: the network's file is checked by its
SHA-256; ``tests/test_versions.py`` pins its moves). ``search-prior`` names the bot over ``ppo:selfplay3_continental_4p`` at ``search@v5``'s
settings; ``search-prior:model=NAME[:K=V...]`` takes another shipped model or ``search-v2``'s
settings (``agents.contract.search_adaptive.Settings``) for screens.
"""

from __future__ import annotations

import random
from typing import Any

from agents.contract.search_adaptive import FROZEN, SearchV2Agent, Settings, capped, overridden
from agents.contract.view import PlayerView

DEFAULT_MODEL = "selfplay3_continental_4p"
# Frozen versions: the network (a shipped model, by name and the SHA-256 of its file) and the
# search's settings. A frozen version never changes; another network or setting is a new one.
FROZEN_PRIOR: dict[str, tuple[str, str, Settings]] = {
    "search@v6": (
        "selfplay3_continental_4p",
        "fad272702ab472bfd5864dc74546a528236ba92cb032633c52118182ad1f1f4b",
        FROZEN["search@v5"],
    ),
}


class PriorSearchAgent(SearchV2Agent):
    """A network's move unless the sampled worlds show another candidate clearly better."""

    name = "search-prior"

    def __init__(
        self,
        seed: int | random.Random | None = None,
        prior: Any = None,
        settings: Settings | None = None,
        compiled: bool | None = None,
    ) -> None:
        if prior is None:
            raise ValueError("search-prior needs a network to guard (prior=...)")
        super().__init__(seed, settings or FROZEN["search@v5"], compiled=compiled)
        self.name = "search-prior"
        self._prior = prior

    def candidates(self, view: PlayerView) -> list[int]:
        """The network's move first, then ``search@v5``'s candidates (each once)."""
        legal = view.legal_actions
        if len(legal) == 1:
            return list(legal)
        first = int(self._prior.act(view))
        if first not in legal:
            raise RuntimeError(f"{self.name}: the network chose {first}, not a legal action")
        return [first] + [a for a in super().candidates(view) if a != first]

    @property
    def prior_moves(self) -> int:
        """Searched decisions; each had the network's move as its first candidate."""
        return self.decisions


def make_frozen(spec: str, seed: int | None) -> PriorSearchAgent:
    """``search@v6`` (``search@v5``'s search guarding ``ppo:selfplay3_continental_4p``'s move) or
    ``search@v6:N`` (at most ``N`` worlds a decision); the network file must be the one it was
    frozen with (ValueError otherwise)."""
    from agents.bots.ppo_agent import file_sha256, load_agent, shipped_model

    parts = spec.split(":")
    if parts[0] not in FROZEN_PRIOR or len(parts) > 2:
        raise ValueError(f"search spec {spec!r}: expected {' or '.join(FROZEN_PRIOR)}[:N]")
    model, digest, settings = FROZEN_PRIOR[parts[0]]
    if len(parts) == 2:
        settings = capped(settings, parts[1])
    path = shipped_model(model)
    if file_sha256(path) != digest:
        raise ValueError(
            f"{parts[0]}: the network {path} is not the file it was frozen with (SHA-256 "
            f"{digest[:16]}...); a frozen version never changes"
        )
    bot = PriorSearchAgent(seed, load_agent(model, seed), settings)
    bot.name = spec
    return bot


def make_search_prior(spec: str, seed: int | None) -> PriorSearchAgent:
    """``search-prior`` or ``search-prior:model=NAME[:K=V...]`` (``NAME``: a model of
    ``agents/models``, or a path to a ``.npz``; ``K``: a ``Settings`` field); ValueError naming a
    bad part."""
    from agents.bots.ppo_agent import load_agent

    parts = spec.split(":")
    if parts[0] != "search-prior":
        raise ValueError(f"search-prior spec {spec!r} must start with search-prior")
    settings = FROZEN["search@v5"]
    model = DEFAULT_MODEL
    for part in parts[1:]:
        key, eq, value = part.partition("=")
        if eq and key == "model" and value:
            model = value
        else:
            settings = overridden(settings, part, spec, also="model=NAME or ")
    prior = load_agent(model, seed)
    bot = PriorSearchAgent(seed, prior, settings)
    bot.name = spec
    return bot


__all__ = ["DEFAULT_MODEL", "FROZEN_PRIOR", "PriorSearchAgent", "make_frozen", "make_search_prior"]
