"""A tuning run as one JSON record: what was searched, every trial, the settings chosen.

The record is written atomically after every trial, so a stopped random search resumes from it
(the same options find the same trials; other options are refused rather than mixed in); a
finished search (``complete``) is read back as it is, so a study re-run does not search again::

    {"format_version": 1, "complete": bool, "identity": {study, competitor, game, method, algorithm,
     space, budget, seed, spawn_key, opponents, eval_games, params}, "defaults": {...}, "trials": [...],
     "chosen": {...}, "chosen_settings": {...}, "tuning_games": N, "scoring_games": M}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, read_json, write_json
from fsmarena.tuning.family import TUNING_KEY, FamilyObjective
from fsmarena.tuning.search import Trial, best_trial, optuna_search, random_search
from fsmarena.tuning.space import Space

FORMAT_VERSION = 1


def identity(objective: FamilyObjective, space: Space, budget: int, algorithm: str, study: str) -> dict[str, Any]:
    """What makes two tuning runs the same run."""
    return {
        "study": study,
        "competitor": objective.label,
        "game": objective.game_name,
        "method": objective.method,
        "algorithm": algorithm,
        "space": space.to_json(),
        "budget": budget,
        "seed": objective.seed,
        "spawn_key": [TUNING_KEY],
        "opponents": list(objective.opponents),
        "eval_games": objective.eval_games,
        "params": dict(objective.params),
    }


def _record(
    ident: dict[str, Any], objective: FamilyObjective, trials: list[Trial], finished: bool = False
) -> dict[str, Any]:
    chosen = best_trial(trials) if trials else None
    return {
        "format_version": FORMAT_VERSION,
        "complete": finished,
        "identity": ident,
        "defaults": objective.resolved({}),
        "trials": [t.to_json() for t in trials],
        "chosen": dict(chosen.settings) if chosen else None,
        "chosen_score": chosen.score if chosen else None,
        "chosen_settings": objective.resolved(chosen.settings) if chosen else None,
        "tuning_games": sum(t.games for t in trials),
        "scoring_games": len(trials) * len(objective.opponents) * objective.eval_games,
    }


def read_trials(path: Path, ident: Mapping[str, Any]) -> dict[int, Trial]:
    """The finished trials of the record at ``path`` if it is this run's (one clear error if not)."""
    f = Fields(read_json(path, "tuning record"), f"tuning record {path}")
    if f.get("format_version", int) != FORMAT_VERSION or f.get("identity", dict) != dict(ident):
        raise FsmarenaError(f"{path} records another tuning run: give a new --out or the same options")
    trials = {}
    for raw in f.get("trials", list):
        t = Fields(raw, f"tuning record {path}, a trial")
        trials[t.get("index", int)] = Trial(
            t.get("index", int), t.get("settings", dict), t.get("games", int), float(t.get("score", (int, float)))
        )
    return trials


def finished_record(path: Path, ident: Mapping[str, Any]) -> dict[str, Any] | None:
    """The record at ``path`` if it is this run's and its search finished; None if it is not
    there or not finished (one clear error if it is another run's or damaged)."""
    if not path.exists():
        return None
    read_trials(path, ident)  # this run's, every trial well formed
    record = read_json(path, "tuning record")
    return record if record.get("complete") is True else None


def run_tuning(
    objective: FamilyObjective,
    space: Space,
    budget: int,
    algorithm: str,
    study: str,
    out: Path | None = None,
    jobs: int = 1,
) -> dict[str, Any]:
    """Tune ``objective`` over ``space`` within ``budget`` games; the record (written to ``out``
    after every trial when given, resumed from it when it holds this run's first trials)."""
    objective.check()
    ident = identity(objective, space, budget, algorithm, study)
    finished = finished_record(out, ident) if out is not None else None
    if finished is not None:  # a finished search is read back, whatever its algorithm
        return finished
    done = read_trials(out, ident) if out is not None and out.exists() else {}
    seen: dict[int, Trial] = dict(done)

    def save(trial: Trial) -> None:
        seen[trial.index] = trial
        if out is not None:
            write_json(out, _record(ident, objective, [seen[i] for i in sorted(seen)]))

    if algorithm == "random":
        trials = random_search(space, objective.cost, objective, budget, objective.seed, jobs, done, save)
    elif done:
        raise FsmarenaError(f"{out} holds an unfinished optuna search, which cannot resume: give a new --out")
    else:
        trials = optuna_search(space, objective.cost, objective, budget, objective.seed, save)
    record = _record(ident, objective, trials, finished=True)
    if out is not None:
        write_json(out, record)
    return record
