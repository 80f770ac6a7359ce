"""What a training run produces and how it is written: :class:`TrainResult`, the learning
curve's columns and CSV text, and the output files of ``fsmarena train`` (each written
atomically, after every text has been made).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from fsmarena.csvfile import csv_text
from fsmarena.fileio import atomic_path, dumps, write_text
from fsmarena.games.base import Game, config_to_dict
from fsmarena.games.players import TablePolicy, player_to_json
from fsmarena.rl.config import (
    TrainConfig,
)
from fsmarena.rl.learners import TabularLearner
from fsmarena.rl.planning import PlanResult

CURVE_COLUMNS = (
    "games",
    "iteration",
    "opponent",
    "eval_games",
    "win",
    "draw",
    "loss",
    "win_ci_low",
    "win_ci_high",
    "mean_reward",
    "mean_score",
    "score_ci_low",
    "score_ci_high",
    "exact_value",
    "epsilon",
)


@dataclass
class TrainResult:
    """What a run produced: the greedy ``policy``, the ``q`` and ``counts`` tables, the
    learning ``curve`` (rows with :data:`CURVE_COLUMNS`), training ``games`` consumed,
    wall-clock ``seconds``, the resolved ``config``, the exact value of the policy when the
    game has a model, and the learner (sample-based) or planner result (model-based)."""

    policy: TablePolicy
    q: np.ndarray
    counts: np.ndarray
    curve: list[dict[str, Any]]
    games: int
    seconds: float
    config: TrainConfig
    exact_value: float | None = None
    learner: TabularLearner | None = None
    plan: PlanResult | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        last = [row for row in self.curve if row["games"] == self.games and row["iteration"] in ("", None)]
        return {
            "algo": self.config.algo,
            "games": self.games,
            "seconds": self.seconds,
            "exact_value": self.exact_value,
            "final": last,
            "config": self.config.to_dict(),
        }


def curve_csv(rows: Sequence[dict[str, Any]]) -> str:
    """The learning curve as CSV text with :data:`CURVE_COLUMNS` (missing cells empty)."""
    return csv_text(CURVE_COLUMNS, [{key: _cell(row.get(key, "")) for key in CURVE_COLUMNS} for row in rows])


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    return value


def write_outputs(out_dir: Path, game: Game, result: TrainResult, seed: int) -> None:
    """policy.json, curve.csv, tables.npz and run.json: every text is made first (anything that
    could fail on the data fails before a file is touched), then each file is written atomically."""
    policy = dumps(player_to_json(result.policy, game)) + "\n"
    curve = curve_csv(result.curve)
    run = dumps(
        {
            "game": game.name,
            "parameters": config_to_dict(game.config),
            "seed": int(seed),
            **result.summary(),
            **result.extra,
        }
    )
    tables = {"q": result.q, "counts": result.counts}
    if result.plan is not None:
        tables["values"] = result.plan.values
    write_text(out_dir / "policy.json", policy)
    write_text(out_dir / "curve.csv", curve)
    with atomic_path(out_dir / "tables.npz", suffix=".npz") as tmp:
        with open(tmp, "wb") as handle:
            np.savez(handle, allow_pickle=False, **tables)
    write_text(out_dir / "run.json", run + "\n")
