"""Pure statistics that score the desk's past verdicts (no I/O): rank IC, calibration, action hit
rates, per-expert attribution, a paired block bootstrap and the per-horizon summary.

Each module's docstring states its definitions; they are the contract the evaluation report
relies on. Every result is a pydantic DTO from `evaluation.domain.metrics` that never holds
NaN or inf (an undefined figure is None).
"""

from stockdesk.evaluation.application.scores.actions import (
    DEFAULT_HOLD_BAND,
    action_stats,
    hit_flags,
    signed_confidence,
)
from stockdesk.evaluation.application.scores.attribution import expert_attribution, signed_stance
from stockdesk.evaluation.application.scores.bootstrap import (
    DEFAULT_SEED,
    DateDecomposable,
    HitRate,
    MeanExcess,
    MeanRankIC,
    bootstrap_difference,
    bootstrap_interval,
    date_counts,
    default_block,
    hit_rate,
    mean_excess,
    mean_rank_ic,
    moving_block_indices,
)
from stockdesk.evaluation.application.scores.calibration import bucket_index, calibration, probability_up
from stockdesk.evaluation.application.scores.rank_ic import daily_ic, rank_ic
from stockdesk.evaluation.application.scores.summary import summarise
from stockdesk.evaluation.domain.metrics import (
    ActionStats,
    BootstrapInterval,
    Calibration,
    DateIC,
    ExpertAttribution,
    HorizonMetrics,
    RankIC,
    ReliabilityRow,
)

__all__ = [
    "DEFAULT_HOLD_BAND",
    "DEFAULT_SEED",
    "ActionStats",
    "BootstrapInterval",
    "Calibration",
    "DateDecomposable",
    "DateIC",
    "ExpertAttribution",
    "HitRate",
    "HorizonMetrics",
    "MeanExcess",
    "MeanRankIC",
    "RankIC",
    "ReliabilityRow",
    "action_stats",
    "bootstrap_difference",
    "bootstrap_interval",
    "bucket_index",
    "calibration",
    "daily_ic",
    "date_counts",
    "default_block",
    "expert_attribution",
    "hit_flags",
    "hit_rate",
    "mean_excess",
    "mean_rank_ic",
    "moving_block_indices",
    "probability_up",
    "rank_ic",
    "signed_confidence",
    "signed_stance",
    "summarise",
]
