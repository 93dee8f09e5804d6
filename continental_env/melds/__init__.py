"""The one meld validator of the three games, one module per family.

| module | what lives there |
|---|---|
| ``melds.core`` | meld kinds, the ``Meld`` record, trio and run validity (jokers wild), run spans |
| ``melds.layoffs`` | lay-off and joker-swap targets on table melds, laying a card off |
| ``melds.exists`` | whether the contract can go down: the fast existence check |
| ``melds.contract`` | contract search: ``has_contract``, the best arrangement, why searches stay |
| ``melds.distance`` | distance to the contract and the cards that reduce it (v1 features) |
| ``melds.laydown`` | the lay-down choice, counting this turn's lay-offs (RULES 1.4) |
| ``melds.fifteen`` | the fifteen-card game's sequences and going-out shapes (RULES Part 2) |
| ``melds.knock`` | the knock game's lays, exact deadwood and announcements (RULES Part 3) |

Pure functions over card ids and count vectors (``cards.py``); no game state, no gymnasium. The
engines, the action masks, the observation features and the bots all call these. Every public
name of every module is re-exported here, so ``from continental_env.melds import X`` and
``melds.X`` work for all of them.
"""

from continental_env.melds.contract import (
    ContractSearch,
    best_arrangement,
    best_contract,
    contract_search,
    find_contract,
    has_contract,
)
from continental_env.melds.core import (
    HIGH,
    LOW,
    RUN,
    TRIO,
    Meld,
    arrange_run,
    is_valid_meld,
    meld_from_row,
    min_spans,
    run_layout,
    run_spans,
    trio_rank,
    window_cards,
)
from continental_env.melds.distance import (
    contract_distance,
    hand_analysis,
    hand_analysis_reference,
    reducing_cards,
)
from continental_env.melds.exists import contract_exists, contract_exists_reference
from continental_env.melds.fifteen import (
    GOING_OUT_SHAPES,
    GOING_OUT_SIZE,
    SEQUENCE_LENGTHS,
    SEQUENCE_RULES,
    can_go_out,
    going_out,
    going_out_discards,
    is_sequence,
    sequence_spans,
)
from continental_env.melds.knock import (
    ACE_VALUES,
    ANNOUNCE_SIZE,
    KNOCKER_RULES,
    LAY_RULES,
    best_lays,
    color_discards,
    continental_discards,
    deadwood,
    deadwood_within,
    is_color,
    is_continental,
    is_lay,
    is_rummy,
    rummy_discards,
)
from continental_env.melds.laydown import (
    LAYDOWN_BUDGET,
    LAYDOWN_EXACT_CARDS,
    best_laydown,
    core_combinations,
    laydown_outcome,
    laydown_plan,
    laydown_plan_reference,
    rest_after,
    stuck_bound,
)
from continental_env.melds.layoffs import (
    can_fit,
    end_card,
    end_joker,
    extend_run,
    fitting_cards,
    joker_for,
    joker_positions,
    lay_off,
    layoff_options,
    natural_layoff_end,
    run_can_extend,
    swap_joker,
    swap_targets,
    take_end_joker,
)

__all__ = [
    "ACE_VALUES",
    "ANNOUNCE_SIZE",
    "GOING_OUT_SHAPES",
    "GOING_OUT_SIZE",
    "HIGH",
    "KNOCKER_RULES",
    "LAYDOWN_BUDGET",
    "LAYDOWN_EXACT_CARDS",
    "LAY_RULES",
    "LOW",
    "RUN",
    "SEQUENCE_LENGTHS",
    "SEQUENCE_RULES",
    "TRIO",
    "ContractSearch",
    "Meld",
    "arrange_run",
    "best_arrangement",
    "best_contract",
    "best_laydown",
    "best_lays",
    "can_fit",
    "can_go_out",
    "color_discards",
    "continental_discards",
    "contract_distance",
    "contract_exists",
    "contract_exists_reference",
    "contract_search",
    "core_combinations",
    "deadwood",
    "deadwood_within",
    "end_card",
    "end_joker",
    "extend_run",
    "find_contract",
    "fitting_cards",
    "going_out",
    "going_out_discards",
    "hand_analysis",
    "hand_analysis_reference",
    "has_contract",
    "is_color",
    "is_continental",
    "is_lay",
    "is_rummy",
    "is_sequence",
    "is_valid_meld",
    "joker_for",
    "joker_positions",
    "lay_off",
    "laydown_outcome",
    "laydown_plan",
    "laydown_plan_reference",
    "layoff_options",
    "meld_from_row",
    "min_spans",
    "natural_layoff_end",
    "reducing_cards",
    "rest_after",
    "rummy_discards",
    "run_can_extend",
    "run_layout",
    "run_spans",
    "sequence_spans",
    "stuck_bound",
    "swap_joker",
    "swap_targets",
    "take_end_joker",
    "trio_rank",
    "window_cards",
]
