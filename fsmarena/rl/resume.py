"""Exact resume of a tabular training run: the run's fingerprint (the settings a checkpoint
must match) and the reading of a checkpoint, checked in full (settings, every curve row,
every table) before anything is taken over.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from fsmarena import limits, run_loop
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import dumps, loads
from fsmarena.games.base import Game, config_to_dict
from fsmarena.games.players import Player
from fsmarena.parallel import restore_rng
from fsmarena.rl import checkpoint as ckpt
from fsmarena.rl.config import (
    TrainConfig,
    positive,
)
from fsmarena.rl.evaluation import describe_player
from fsmarena.rl.learners import TabularLearner
from fsmarena.text import clean_text


def run_fingerprint(
    game: Game,
    config: TrainConfig,
    seed: int,
    opponent: Player | None,
    panel: Sequence[Player],
    compiled: bool = False,
) -> dict[str, Any]:
    """The settings a checkpoint must match to be resumed.  A batched run in the compiled loop
    (``compiled``, :func:`fsmarena.rl.sequential_run.compiled_batches`) says so: its games come from
    another random stream than a batched run of the Python path, so neither resumes the other."""
    fingerprint = {
        "game": game.name,
        "parameters": config_to_dict(game.config),
        "config": config.to_dict(),
        "seed": int(seed),
        "opponent": describe_player(opponent, game),
        "panel": [describe_player(p, game) for p in panel],
    }
    if compiled and config.batch != 1:
        fingerprint["loop"] = "compiled"
    return fingerprint


@dataclass(frozen=True)
class Resumed:
    """What a checkpoint hands on to a resumed run (besides the learner's tables): games done,
    curve rows, seconds spent, the batched algorithm's random stream, the self-play table."""

    done: int
    curve: list[dict[str, Any]]
    seconds: float
    rng: np.random.Generator | None
    frozen: np.ndarray | None


def read_checkpoint(
    path: Path,
    game: Game,
    config: TrainConfig,
    fingerprint: dict[str, Any],
    panel: Sequence[Player],
    learner: TabularLearner,
    compiled: bool = False,
) -> Resumed:
    """The checkpoint at ``path`` checked in full against this run (settings, every curve row,
    every table) and its tables loaded into ``learner``; FsmarenaError (one line) for any
    defect.  :func:`prepare` calls it on a scratch learner so that a bad checkpoint is refused
    before any work starts; the run calls it again to take the state over.  A run of the
    compiled loop (``compiled``) reseeds its stream per chunk: it keeps no generator."""
    source = f"checkpoint {path}"
    expected: dict[str, np.ndarray | None] = {**learner.arrays(), "frozen": np.zeros(game.n_states, dtype=np.int64)}
    meta, tables = ckpt.load_checkpoint(path, max_done=positive("--episodes", config.episodes), expected=expected)
    saved, current = meta.get("fingerprint"), _jsonable(fingerprint)
    if saved != current:
        raise FsmarenaError(f"{source} was made with different settings: {_differences(saved, current)}")
    done = int(meta["done"])
    curve = ckpt.check_rows(meta["curve"], curve_columns(panel, done), source, "curve")
    frozen = _frozen_table(tables, game, source, set(learner.arrays()))
    learner.load_arrays(tables, source)
    rng = None if compiled else restore_rng(meta.get("rng"), source)
    return Resumed(done, list(curve), float(meta.get("seconds", 0.0)), rng, frozen)


def curve_columns(panel: Sequence[Player], done: int) -> dict[str, ckpt.Column]:
    """What each column of a sample-based run's curve row may hold (:meth:`TrainingRun.evaluate_now`):
    a point at most ``done`` games in, against a member of ``panel`` (``""`` when solo)."""
    fraction = ckpt.Column(float, 0.0, 1.0, empty=True)  # blank in one-player games
    number = ckpt.Column(float, empty=True)  # null when not finite or not known (no model)
    return {
        "games": ckpt.Column(int, 0, done),
        "iteration": ckpt.Column(str, choices=("",)),
        "opponent": ckpt.Column(str, choices=tuple(p.label for p in panel) or ("",)),
        "eval_games": ckpt.Column(int, 1, limits.MAX_GAMES, limit="MAX_GAMES"),
        "win": fraction,
        "draw": fraction,
        "loss": fraction,
        "win_ci_low": fraction,
        "win_ci_high": fraction,
        "mean_reward": number,
        "mean_score": number,
        "score_ci_low": number,
        "score_ci_high": number,
        "exact_value": number,
        "epsilon": ckpt.Column(float, 0.0, 1.0),
    }


def _frozen_table(tables: dict[str, np.ndarray], game: Game, source: str, known: set[str]) -> np.ndarray | None:
    """The checkpoint's frozen self-play policy, if it has one: one action of the game per
    state (compiled code indexes with it).  Tables the learner does not know (``known``: its
    own, :meth:`fsmarena.rl.learners.TabularLearner.arrays`) are refused."""
    unknown = sorted(set(tables) - known - {"frozen"})
    if unknown:
        raise FsmarenaError(f"{source}: unexpected table '{clean_text(unknown[0], limits.MAX_SHOWN_CHARS)}'")
    if "frozen" not in tables:
        return None
    frozen = ckpt.check_table(tables["frozen"], np.zeros(game.n_states, dtype=np.int64), source, "frozen")
    if frozen.size and frozen.max() >= game.n_actions:
        raise FsmarenaError(f"{source}: table 'frozen' names actions beyond {game.n_actions - 1}")
    return np.array(frozen, dtype=np.int64)


def _jsonable(data: Any) -> Any:
    """``data`` as it reads back from JSON (tuples -> lists), to compare with a checkpoint."""
    return loads(dumps(data))


#: a checkpoint's settings against this run's, as one line (:func:`fsmarena.run_loop.differences`)
_differences = run_loop.differences
