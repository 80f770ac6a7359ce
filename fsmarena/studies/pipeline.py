"""The one run loop of a study: every part trained, then its stages, into one results object.

A study (:class:`fsmarena.studies.protocol.Study`) has one part, or one per value of its ``sweep``
(Stupide Vautour at 2 and 3 players, each in ``DIR/<value>-<parameter>/``).  For each part
:func:`run_pipeline` runs (or resumes) every replicate task on the generic runner
(:func:`fsmarena.studies.runner.run_study`), then each of the study's stages that applies
(:mod:`fsmarena.studies.stage`), and returns the :class:`~fsmarena.studies.results.StudyResults`
that the report writer, the store and the Python API take::

    for part in study.parts():
        data = run_study(part.plan(scale, seed), folder(part))     # resumable, --jobs independent
        for stage in study.stages: if stage.applies(data): data.stages[stage] = stage.run(...)
    for level in the scale's smaller budget levels:              # every family configured for it
        results.levels[level] = the same at that level, in DIR/levels/<level>-games/,
                                with only the stages that compare families (cross-play, league)

The parts run at the scale's largest budget level (or its one budget); a scale that declares
several ``levels`` (docs/statistics.md, "Budgets") also runs the study at each smaller one, every
family configured for it, so the report can compare the families at each budget they were all
configured for (:mod:`fsmarena.studies.sample_efficiency`).

A finished run records its exact command and wall-clock time in ``DIR/run.json``
(:func:`write_run_record`); :func:`read_run` rebuilds the same results object from a finished
study folder (its stages' cached counts, replayed there if missing), which is what
``fsmarena publish --add`` stores.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Callable

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, read_json, write_json
from fsmarena.games import get_game
from fsmarena.games.players import resolve_player
from fsmarena.methods.base import require_method
from fsmarena.outdir import claim_folder, has_user_files
from fsmarena.studies.catalogue import get_study, stage, study_names
from fsmarena.studies.competitors import check_competitors
from fsmarena.studies.protocol import FORMAT_VERSION, Plan, Study
from fsmarena.studies.results import StudyResults
from fsmarena.studies.runner import MARKER, StudyData, finished_results, run_study
from fsmarena.studies.stage import PrepareContext, StageContext
from fsmarena.text import clean_text
from fsmarena.version import __version__

#: the marker of a swept study's folder (its parts each have their own ``study.json``)
SWEEP_MARKER = "sweep.json"
#: how a finished run was made: its exact command and wall-clock time
RUN_RECORD = "run.json"
Log = Callable[[str], None]


def _quiet(message: str) -> None:
    """No progress lines (a finished folder's stages are reused, or played again quietly)."""


def plans(study: Study, scale: str, seed: int | None = None, level: int | None = None) -> dict[int | None, Plan]:
    """Every part's plan at ``scale`` (and budget ``level``, default the largest), each game,
    builtin and competitor setting checked."""
    found = {part: s.plan(scale, seed, level) for part, s in study.parts().items()}
    for plan in found.values():
        game = get_game(plan.study.game, plan.study.game_params)
        for name in plan.study.panel + (plan.study.curve_opponent,):
            resolve_player(name, game)
        check_competitors(plan, game)
    return found


def run_pipeline(
    study: Study, scale: str, out: Path, seed: int | None = None, jobs: int = 1, log: Log = _quiet
) -> StudyResults:
    """Run (or resume) every part of ``study`` at ``scale`` into ``out``: its replicate tasks,
    then its stages, at the scale's largest budget level, then at each smaller one (module
    docstring)."""
    levels = study.smaller_levels(scale)
    found = {level: plans(study, scale, seed, level) for level in (None, *levels)}  # all checked first
    for method in dict.fromkeys(c.method for c in study.competitors):
        require_method(method)  # an optional extra training needs: asked before anything is written
    results = _run_level(study, scale, out, found[None], jobs, log, study.top_level(scale))
    for level in levels:
        log(f"{study.name}: every family configured for {level:,} games")
        results.levels[level] = _run_level(study, scale, study.level_folder(out, level), found[level], jobs, log, level)
    return results


def _run_level(
    study: Study, scale: str, out: Path, found: dict[int | None, Plan], jobs: int, log: Log, level: int | None
) -> StudyResults:
    """Every part of one budget level (the study's stages at its top level, only those that
    compare families at a smaller one)."""
    if study.sweep is not None:
        claim_folder(out, "study")
        _claim_sweep(out, study, scale, found)
    parts = {}
    smaller = level != study.top_level(scale)
    for part, plan in found.items():
        where = study.part_folder(out, part)
        data = run_study(plan, where, jobs, log, partial(prepared, study, scale, out=where, jobs=jobs, log=log))
        run_stages(study, scale, data, jobs, log, comparing_only=smaller)
        parts[part] = data
    return StudyResults(study, scale, next(iter(found.values())).seed, parts, out=out, level=level)


def stages_to_run(study: Study, data: StudyData, comparing_only: bool = False) -> list[str]:
    """The stages of ``study`` that apply to ``data``, in order; with ``comparing_only`` (a
    smaller budget level's run) only those that compare families.  What runs, and what a store
    must hold, is this list."""
    return [name for name in study.stages if stage(name).applies(data) and (stage(name).compares or not comparing_only)]


def run_stages(
    study: Study, scale: str, data: StudyData, jobs: int = 1, log: Log = _quiet, comparing_only: bool = False
) -> None:
    """Every stage of :func:`stages_to_run`, in order, into ``data.stages``."""
    for name in stages_to_run(study, data, comparing_only):
        data.stages[name] = stage(name).run(StageContext(study, scale, data, jobs, log))


def prepared(
    study: Study, scale: str, plan: Plan, out: Path, jobs: int = 1, log: Log = _quiet, run: bool = True
) -> Plan:
    """The plan a part's replicates train with: ``plan`` (the study as defined) as each listed
    stage's :attr:`~fsmarena.studies.stage.Stage.prepare` leaves it (the tuning stage sets the
    tuned families' chosen settings); ``run`` False only reads what a finished run wrote."""
    for name in study.stages:
        hook = stage(name).prepare
        if hook is not None:
            plan = hook(PrepareContext(study, scale, plan, out, jobs, log, run))
    return plan


def _claim_sweep(out: Path, study: Study, scale: str, found: dict[int | None, Plan]) -> None:
    """Make ``out`` this swept run's folder: new, empty, or marked by the same plans."""
    ours = {
        "study": study.name,
        "scale": scale,
        "seed": next(iter(found.values())).seed,
        "fingerprints": {str(part): p.fingerprint for part, p in found.items()},
    }
    marker = out / SWEEP_MARKER
    if marker.exists():
        theirs = Fields(read_json(marker, "study marker"), f"study marker {marker}").data
        same_run = ("study", "scale", "seed")  # a changed definition goes on in the folder (runner.claim)
        if {k: theirs.get(k) for k in same_run} != {k: ours[k] for k in same_run}:
            raise FsmarenaError(
                f"{out} holds another run (study '{clean_text(str(theirs.get('study')), 80)}', scale "
                f"{clean_text(str(theirs.get('scale')), 40)}, seed {clean_text(str(theirs.get('seed')), 40)}): "
                "choose another --out"
            )
        if theirs.get("fingerprints") != ours["fingerprints"]:
            write_json(marker, {"format_version": FORMAT_VERSION, **ours, "fsmarena": __version__})
        return
    if has_user_files(out):  # the lock and kind files of fsmarena.outdir do not count
        raise FsmarenaError(f"{out} is not empty and holds no study results; choose a new or empty --out")
    write_json(marker, {"format_version": FORMAT_VERSION, **ours, "fsmarena": __version__})


# ---- how a run was made ----------------------------------------------------------------------


def write_run_record(out: Path, command: str, wall_seconds: float | None) -> None:
    """Record the exact command and wall-clock time of a finished run (``DIR/run.json``)."""
    write_json(out / RUN_RECORD, {"format_version": FORMAT_VERSION, "command": command, "wall_seconds": wall_seconds})


def read_run_record(out: Path) -> tuple[str, float | None]:
    """The command and wall-clock time a finished run recorded (a run records them last, so a
    folder without them is not finished)."""
    path = out / RUN_RECORD
    if not path.is_file():
        raise FsmarenaError(f"{out} is not a finished run: it has no {RUN_RECORD} (run its command again to finish it)")
    f = Fields(read_json(path, "run record"), f"run record {path}")
    wall = f.get("wall_seconds", (int, float, type(None)))
    if wall is not None and (isinstance(wall, bool) or not 0 <= wall <= 1e12):
        raise f.fail("field 'wall_seconds' must be a number of seconds or null")
    return clean_text(f.get("command", str), 1000), (None if wall is None else float(wall))


# ---- a finished folder -----------------------------------------------------------------------


def read_run(folder: Path, study: Study | None = None) -> StudyResults:
    """The results of the finished run in ``folder`` of ``study`` (default: the named study its
    marker names), with its smaller budget levels; one clear error for a folder that is not that
    study's run, is another version's, or is not finished."""
    study, scale, seed = _folder_study(folder, study)
    command, wall = read_run_record(folder)
    results = _read_level(folder, study, scale, seed, study.top_level(scale))
    for level in study.smaller_levels(scale):
        results.levels[level] = _read_level(study.level_folder(folder, level), study, scale, seed, level)
    results.command, results.wall_seconds = command, wall
    return results


def _read_level(folder: Path, study: Study, scale: str, seed: int, level: int | None) -> StudyResults:
    """The finished parts of one budget level of a run (its stages' cached counts read back)."""
    found = plans(study, scale, seed, level)
    _check_fingerprints(folder, study, found)
    parts = {}
    smaller = level != study.top_level(scale)
    for part, plan in found.items():
        where = study.part_folder(folder, part)
        plan = prepared(study, scale, plan, where, run=False)
        results, settings = finished_results(where, plan)
        records = {(record.competitor, record.replicate): record for _, record in results.values()}
        data = StudyData(plan, get_game(plan.study.game, plan.study.game_params), records, where, settings)
        try:
            run_stages(study, scale, data, comparing_only=smaller)
        except FsmarenaError as exc:
            raise FsmarenaError(f"{where} is not a finished run: {exc}") from None
        parts[part] = data
    return StudyResults(study, scale, next(iter(found.values())).seed, parts, out=folder, level=level)


def _folder_study(folder: Path, given: Study | None) -> tuple[Study, str, int]:
    """The study (``given``, else the named study), scale and seed a finished folder's marker names."""
    swept = (folder / SWEEP_MARKER).is_file()
    if not swept and not (folder / MARKER).is_file():
        raise FsmarenaError(f"{folder} is not a study folder (no {MARKER}); give the --out folder of `fsmarena study`")
    if not swept and (folder.parent / SWEEP_MARKER).is_file():
        raise FsmarenaError(f"{folder} is one part of the run in {folder.parent}: give that folder")
    path = folder / (SWEEP_MARKER if swept else MARKER)
    marker = Fields(read_json(path, "study marker"), f"study marker {path}")
    name = marker.get("study", str)
    if given is not None and name != given.name:
        raise marker.fail(f"names study '{clean_text(name, 80)}', not '{given.name}'")
    if given is None and name not in study_names():
        raise marker.fail(
            f"names study '{clean_text(name, 80)}', not a named study (published/ holds the named studies only; "
            "from Python, give its definition: load_results(folder, study='file.toml'))"
        )
    study = given if given is not None else get_study(name)
    if swept != (study.sweep is not None):
        raise marker.fail(
            f"names study '{name}', which runs {'one part' if study.sweep is None else 'one part per ' + study.sweep[0]}"
            ": give the folder its run was written to (`fsmarena study NAME --out DIR`)"
        )
    return study, marker.get("scale", str), marker.get("seed", int)


def _check_fingerprints(folder: Path, study: Study, found: dict[int | None, Plan]) -> None:
    """The folder's markers (the sweep's and each part's) name the plans this version makes of the study."""
    if study.sweep is not None:
        path = folder / SWEEP_MARKER
        theirs_all = Fields(read_json(path, "study marker"), f"study marker {path}").get("fingerprints", dict)
        if theirs_all != {str(part): plan.fingerprint for part, plan in found.items()}:
            raise FsmarenaError(
                f"{folder} was run with another definition of study '{study.name}': run it again with this version"
            )
    for part, plan in found.items():
        path = study.part_folder(folder, part) / MARKER
        theirs = Fields(read_json(path, "study marker"), f"study marker {path}").get("fingerprint", str)
        if theirs != plan.fingerprint:
            raise FsmarenaError(
                f"{folder} was run with another definition of study '{study.name}' (protocol {clean_text(theirs, 40)}, "
                f"this version's is {plan.fingerprint}): run it again with this version"
            )
