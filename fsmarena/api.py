"""fsmarena from Python: the study pipeline and matches as functions, with the command line's defaults.

::

    import fsmarena

    results = fsmarena.run_study("dtd-thesis", scale="test", out="results/dtd-thesis")
    print(results.summary())
    tables = results.tables()                    # every table of the report, as rows
    again = fsmarena.load_results("published/dtd-thesis")   # a published run, the same object
    stats = fsmarena.play("dtd", "always-large", "random", games=2000, seed=1)
    policy = fsmarena.train("dtd", "q-learning", episodes=50_000, seed=1).policy
    machines = fsmarena.evolve("dtd", "fsm", "round-robin", generations=5, seed=1)

A study run from Python is the run ``fsmarena study`` makes (same folder layout, same results
for the same seed, resumable); its report names the equivalent command.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import Mapping

from fsmarena.errors import FsmarenaError
from fsmarena.evo.evolve_state import EvolveResult
from fsmarena.evo.run import evolve as run_evolution
from fsmarena.evo.settings import EvolveConfig
from fsmarena.games import get_game
from fsmarena.games.match import MatchStats, TournamentResult, play_match, round_robin
from fsmarena.games.players import Player, resolve_player
from fsmarena.outdir import claim_folder
from fsmarena.rl.config import TrainConfig
from fsmarena.rl.results import TrainResult
from fsmarena.rl.train import train as run_training
from fsmarena.studies.catalogue import get_study
from fsmarena.studies.pipeline import read_run, run_pipeline, write_run_record
from fsmarena.studies.report import write_report
from fsmarena.studies.results import StudyResults
from fsmarena.studies.store import MANIFEST, load_store


def run_study(
    study: str | Path,
    scale: str = "quick",
    out: str | Path | None = None,
    *,
    jobs: int = 1,
    seed: int | None = None,
    figures: bool = True,
    quiet: bool = True,
) -> StudyResults:
    """Run (or resume) the study named ``study`` (or the study file at that path) at ``scale``
    into ``out`` (default ``results/<study>``), write its report, tables and figures, and return
    its results; ``quiet=False`` prints the command's progress lines on standard error."""
    chosen = get_study(str(study))
    folder = Path(out) if out is not None else Path("results") / chosen.name
    claim_folder(folder, "study")
    start = time.perf_counter()
    results = run_pipeline(chosen, scale, folder, seed, jobs, _log if not quiet else _silent)
    results.command = _command(str(study), scale, jobs, seed, folder)
    results.wall_seconds = time.perf_counter() - start
    write_report(results, figures)
    write_run_record(folder, results.command, results.wall_seconds)
    return results


def load_results(folder: str | Path, study: str | Path | None = None) -> StudyResults:
    """The results of a finished study folder (the ``out`` of a run) or of a published store
    (``published/<study>/``), validated as the command line reads them; a folder of a study that
    is not a named one needs its definition, ``study`` (a study file's path)."""
    path = Path(folder)
    if (path / MANIFEST).is_file():
        return load_store(path)
    return read_run(path, None if study is None else get_study(str(study)))


def play(
    game: str,
    a: str | Player,
    b: str | Player | None = None,
    games: int = 10_000,
    seed: int = 0,
    jobs: int = 1,
    params: Mapping[str, str] | None = None,
) -> MatchStats:
    """``a`` against ``b`` (builtin names, player files or players; seats rotated) over ``games``
    games of ``game`` with rule ``params``, as ``fsmarena play`` plays them; ``b`` is None in a
    one-player game."""
    chosen = get_game(game, dict(params or {}))
    first = a if isinstance(a, Player) else resolve_player(a, chosen)
    second = b if b is None or isinstance(b, Player) else resolve_player(b, chosen)
    return play_match(chosen, first, second, games, seed, jobs)


def tournament(
    game: str,
    players: list[str | Player],
    games: int = 10_000,
    seed: int = 0,
    jobs: int = 1,
    params: Mapping[str, str] | None = None,
) -> TournamentResult:
    """A round robin of ``players`` (every pair meets over ``games`` games, seats rotated), as
    ``fsmarena tournament`` plays it."""
    chosen = get_game(game, dict(params or {}))
    seated = [p if isinstance(p, Player) else resolve_player(p, chosen) for p in players]
    return round_robin(chosen, seated, games, seed, jobs)


def train(
    game: str,
    algo: str,
    *,
    opponent: str | Player = "random",
    seed: int = 0,
    jobs: int = 1,
    out: str | Path | None = None,
    params: Mapping[str, str] | None = None,
    **settings: object,
) -> TrainResult:
    """Train learner ``algo`` (``fsmarena train --help`` lists them) on ``game`` against
    ``opponent``, with the settings of :class:`fsmarena.rl.train.TrainConfig` given as keywords
    (``episodes=200_000``, ``alpha=0.1``...; the rest take the algorithm's and the game's
    defaults, as the command's options do); ``out`` keeps its policy, curve and checkpoint."""
    chosen = get_game(game, dict(params or {}))
    _known(settings, TrainConfig, "training")
    config = TrainConfig(algo=algo, **settings).resolved(chosen, given=list(settings))  # type: ignore[arg-type]
    rival = opponent if isinstance(opponent, Player) else resolve_player(opponent, chosen)
    folder = None if out is None else claim_folder(out, "train")
    return run_training(chosen, config, seed=seed, opponent=rival, jobs=jobs, out=folder)


def evolve(
    game: str,
    genome: str = "fsm",
    protocol: str = "round-robin",
    *,
    seed: int = 0,
    jobs: int = 1,
    out: str | Path | None = None,
    params: Mapping[str, str] | None = None,
    **settings: object,
) -> EvolveResult:
    """Evolve ``genome`` players (``fsm`` or ``bda``) on ``game`` with ``protocol``, with the
    settings of :class:`fsmarena.evo.run.EvolveConfig` given as keywords (``generations=20``,
    ``population=24``...; the rest take the protocol's defaults, as the command's options do);
    ``out`` keeps the best player, logbook, population and checkpoint."""
    chosen = get_game(game, dict(params or {}))
    _known(settings, EvolveConfig, "evolution")
    given = {k: tuple(v) if k == "panel" and isinstance(v, list) else v for k, v in settings.items()}
    config = EvolveConfig(genome=genome, protocol=protocol, **given).resolved(given=given)  # type: ignore[arg-type]
    config.check_sizes(chosen)
    folder = None if out is None else claim_folder(out, "evolve")
    return run_evolution(chosen, config, seed, jobs, folder)


def _known(settings: Mapping[str, object], config: type, what: str) -> None:
    """One clear error for a keyword that is no setting of ``config`` (a typo)."""
    names = [f.name for f in dataclasses.fields(config)]
    unknown = sorted(set(settings) - set(names))
    if unknown:
        raise FsmarenaError(f"unknown {what} setting '{unknown[0]}' (known: {', '.join(names)})")


def _command(study: str, scale: str, jobs: int, seed: int | None, out: Path) -> str:
    """The command that makes the same run."""
    parts = ["fsmarena", "study", study, "--scale", scale, "--jobs", str(jobs)]
    if seed is not None:
        parts += ["--seed", str(seed)]
    return " ".join([*parts, "--out", str(out)])


def _log(message: str) -> None:
    print(f"fsmarena study: {message}", file=sys.stderr)


def _silent(message: str) -> None:
    """No progress lines."""
