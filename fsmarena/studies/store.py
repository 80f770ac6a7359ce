"""Published results: one finished study run kept as data in ``published/<study>/``, the one store.

A study folder (:mod:`fsmarena.studies.pipeline`) holds players, figures and tables; the published store of
the same run holds only what its report reads, so that every number of the results pages can be
regenerated from the repository alone (:mod:`fsmarena.publish.pages`), without re-running anything::

    published/<study>/manifest.json     the run: study, scale, master seed, plan fingerprint(s), the
                                        exact command, versions, CPU and wall time, dates
    published/<study>/results.json.gz   the study as defined (texts, stages, sweep, the fields its
                                        stages read) and, per part, its plan, every competitor's
                                        resolved settings, every replicate task's result (the result
                                        file without its player), every stage's result and, for a
                                        report that reads them, the measures it takes by playing the
                                        players ("kept": machine sizes and usage, fingerprints,
                                        best-known lines)

It is the :class:`~fsmarena.studies.results.StudyResults` of the run, written by :func:`save_results`
and read back by :func:`load_store`, whatever the study: each stage serialises and validates its
own result (:mod:`fsmarena.studies.stage`), so the store knows none of them.  No player and no
checkpoint is kept: what the report measures by playing them is measured once at ``--add`` time
from the study folder (:mod:`fsmarena.studies.kept_measures`).  Reading validates everything as the
study's own readers do: a damaged or hostile store ends in one clear error.  The store is rebuilt
from itself: the study's definition is kept beside the plans, and every plan is checked against
its fingerprint, so a later change of the study's TOML file does not change (or break) what a
published run says.  Stores of an earlier format are refused in one line.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import re
import shutil
import tempfile
import time
import zlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, atomic_path, dumps, loads, read_bytes, read_json, write_json
from fsmarena.games import get_game
from fsmarena.games.players import Player
from fsmarena.stored_values import check_one_member, check_stored
from fsmarena.studies.catalogue import stage
from fsmarena.studies.kept_measures import measure_kept, read_kept
from fsmarena.studies.pipeline import read_run, stages_to_run
from fsmarena.studies.protocol import Competitor, Plan, Scale, Study
from fsmarena.studies.provenance import run_environment
from fsmarena.studies.registry import report_entry
from fsmarena.studies.results import StudyResults
from fsmarena.studies.runner import Record, StudyData, champion_label, parse_record, result_path
from fsmarena.studies.stage import StageContext
from fsmarena.text import clean_text

#: the folder of the published runs, under the root of a checkout
PUBLISHED = "published"
MANIFEST = "manifest.json"
RESULTS = "results.json.gz"
STORE_FORMAT = 2
#: a store's compressed results may take at most this many bytes (a few MB per study is the aim)
MAX_STORE_BYTES = 32 * 1024 * 1024
#: packages whose versions a manifest records beside the report's own list
EXTRA_PACKAGES = ("numba", "scikit-learn")
#: study names are folder names under ``published/``
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_COMPETITOR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class UnkeptPlayer(Player):
    """Stands in for a published result's player: the store keeps none, so a report section
    that would play it fails with one clear line instead of a wrong page."""

    kind = "unkept"

    def act(self, obs: Any, memory: Any, rows: Any, rng: Any) -> np.ndarray:
        raise FsmarenaError(f"{self.label}: published results keep no players; this needs the study folder itself")


# ---- adding a finished study folder ----------------------------------------------------------


def add_run(folder: str | os.PathLike, root: str | os.PathLike) -> Path:
    """``fsmarena publish --add DIR``: store the finished run in ``folder`` into
    ``root/published/<study>/`` (replacing a previous store of the same study); returns the
    store's folder."""
    results = read_run(Path(folder))
    if report_entry(results.study.report).keeps_measures:
        for data in results.parts.values():  # a best-known line missing there is searched there
            data.kept = measure_kept(data)
    environment = run_environment(EXTRA_PACKAGES)
    marker = Fields(read_json(_marker(Path(folder), results), "study marker"), "study marker")
    environment["fsmarena"] = marker.get("fsmarena", str)
    return save_results(results, root, environment, _newest_result(results))


def _marker(folder: Path, results: StudyResults) -> Path:
    first = next(iter(results.parts))
    return results.study.part_folder(folder, first) / "study.json"


def _newest_result(results: StudyResults) -> float:
    """When the run finished: the newest of its replicates' result files."""
    return max(
        result_path(data.out, name, r).stat().st_mtime for data in results.parts.values() for name, r in data.records
    )


def save_results(results: StudyResults, root: str | os.PathLike, environment: dict[str, str], finished: float) -> Path:
    """Write ``results`` as the store ``root/published/<study>/`` (module docstring)."""
    parts = [part_json(results, part, part_data) for part, part_data in results.parts.items()]
    level_parts = {
        level: [part_json(run, part, part_data) for part, part_data in run.parts.items()]
        for level, run in sorted(results.levels.items())
    }
    levels = [{"level": level, "parts": stored} for level, stored in level_parts.items()]
    tasks = [task for stored in parts + sum(level_parts.values(), []) for task in stored["results"]]
    data = {"format_version": STORE_FORMAT, "study": definition_json(results.study), "parts": parts}
    if results.level is not None:  # absent from stores of runs without levels, which read as before
        data.update(level=results.level, levels=levels)
    manifest = {
        "format_version": STORE_FORMAT,
        "study": results.name,
        "scale": results.scale,
        "seed": results.seed,
        "fingerprint": results.fingerprint,
        "command": results.command,
        "tasks": len(tasks),
        "cpu_seconds": round(sum(task["cpu_seconds"] for task in tasks), 1),
        "wall_seconds": results.wall_seconds,
        "finished": datetime.fromtimestamp(finished, timezone.utc).strftime("%Y-%m-%d"),
        "added": time.strftime("%Y-%m-%d", time.gmtime()),
        "environment": environment,
        "results": RESULTS,
    }
    return write_store(Path(root) / PUBLISHED / results.name, manifest, data)


def definition_json(study: Study) -> dict[str, Any]:
    """What a store keeps of the study as defined: its texts, stages, sweep and the fields its
    stages read (the study's and every scale's)."""
    return {
        "name": study.name,
        "title": study.title,
        "version": study.version,
        "question": study.question,
        "report": study.report,
        "stages": list(study.stages),
        "sweep": None if study.sweep is None else [study.sweep[0], list(study.sweep[1])],
        "options": dict(study.options),
        "scale_options": {name: dict(scale.options) for name, scale in study.scales.items()},
    }


def part_json(results: StudyResults, part: int | None, data: StudyData) -> dict[str, Any]:
    """What a store keeps of one part: its plan, settings, results without players, stages and kept measures."""
    plan = data.plan
    context = StageContext(results.study, results.scale, data)
    stored = {
        "part": part,
        "study": study_json(plan.study, plan),
        "plan": plan.to_json(),
        "fingerprint": plan.fingerprint,
        "settings": data.settings,
        "results": [_result_json(record) for record in data.records.values()],
        "stages": {name: stage(name).to_json(result, context) for name, result in data.stages.items()},
    }
    if data.kept is not None:
        stored["kept"] = data.kept
    return stored


def _result_json(record: Record) -> dict[str, Any]:
    """A replicate's result file without its player, as the runner wrote it."""
    return {k: v for k, v in record.raw.items() if k != "player"}


def study_json(study: Study, plan: Plan) -> dict[str, Any]:
    """What a report reads of a part's study beside its plan."""
    return {
        "title": study.title,
        "question": study.question,
        "report": study.report,
        "questions": [list(q) for q in study.questions],
        "scale_description": plan.scale.description,
        "compare_at_smallest_budget": plan.scale.compare_at_smallest_budget,
        "best_known": dict(study.best_known),
    }


def write_store(target: Path, manifest: dict[str, Any], results: dict[str, Any]) -> Path:
    """Write both files into a new folder beside ``target``, then swap it in: a reader sees the
    old store or the new one (an interruption between the two renames leaves the old one in a
    hidden ``.<study>.old-*`` folder beside it)."""
    parent = target.parent
    if target.exists() and not (target / MANIFEST).is_file():
        raise FsmarenaError(f"{target} exists and is not a published store; move it away first")
    if target.exists():
        Fields(read_json(target / MANIFEST, "published manifest"), f"published manifest {target / MANIFEST}")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=parent))
    except OSError as exc:
        raise FsmarenaError(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        data = results_bytes(results)
        if len(data) > MAX_STORE_BYTES:
            raise FsmarenaError(
                f"the results of {manifest['study']} take {len(data):,} bytes compressed, over the store's limit"
            )
        (fresh / RESULTS).write_bytes(data)
        write_json(fresh / MANIFEST, manifest)
        os.chmod(fresh, 0o755)
        old = parent / f".{target.name}.old-{os.getpid()}"
        if target.exists():
            os.rename(target, old)
        os.rename(fresh, target)
        shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        raise FsmarenaError(f"cannot write {target}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return target


# ---- reading a store -------------------------------------------------------------------------


def stores(root: str | os.PathLike) -> list[Path]:
    """The store folders under ``root/published`` (hidden folders, being written, left out)."""
    folder = Path(root) / PUBLISHED
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".") and p.is_dir())


def open_store(folder: Path) -> tuple[dict[str, Any], Fields]:
    """A store's validated manifest and its decoded results (one clear error if damaged)."""
    manifest_path = folder / MANIFEST
    m = Fields(read_json(manifest_path, "published manifest"), f"published manifest {manifest_path}")
    if m.get("format_version", int) != STORE_FORMAT:
        raise m.fail(
            f"unsupported format_version (this version reads {STORE_FORMAT}: store the run again with "
            "`fsmarena publish --add DIR`)"
        )
    name = m.get("study", str)
    if name != folder.name or not _NAME.match(name):
        raise m.fail(f"names study '{clean_text(name, 80)}', not its folder's '{folder.name}'")
    if m.get("results", str) != RESULTS:
        raise m.fail(f"field 'results' must be '{RESULTS}'")
    manifest = read_manifest(m)
    check_stored(m.data, m.source)  # its dates too (fsmarena.stored_values)
    source = f"published results {folder / RESULTS}"
    f = Fields(loads(gunzip(folder / RESULTS, source), source), source)
    levels = f.data.get("levels")
    bare = {"parts": _without_results(f.data.get("parts"))}  # each part's results: by parse_record
    if isinstance(levels, list):
        bare["levels"] = [
            {**at, "parts": _without_results(at.get("parts"))} if isinstance(at, dict) else at for at in levels
        ]
    check_stored({**f.data, **bare}, source)
    if f.get("format_version", int) != STORE_FORMAT:
        raise f.fail(f"unsupported format_version (this version reads {STORE_FORMAT})")
    return manifest, f


def _without_results(parts: Any) -> Any:
    """Stored parts without their task results (validated apart, by the runner's own reader)."""
    if not isinstance(parts, list):
        return parts
    return [{k: v for k, v in p.items() if k != "results"} if isinstance(p, dict) else p for p in parts]


def load_store(folder: str | os.PathLike) -> StudyResults:
    """Read and validate one store into the results of its run (one clear error if damaged)."""
    folder = Path(folder)
    manifest, f = open_store(folder)
    stored = _stored_parts(f, folder, manifest)
    first = stored[0][1].plan
    study = stored_definition(Fields(f.get("study", dict), f"{f.source}: study"), first, manifest)
    results = StudyResults(
        study, first.scale.name, first.seed, {}, manifest["command"], manifest["wall_seconds"], manifest
    )
    _read_parts(results, stored, f, comparing_only=False)
    results.level = None if "level" not in f.data else f.int_in("level", 1, limits.MAX_GAMES)
    for i, raw in enumerate(f.get("levels", list, [])):
        at = Fields(raw, f"{f.source}: level {i}")
        level = at.int_in("level", 1, limits.MAX_GAMES)
        if results.level is None or level >= results.level or level in results.levels:
            raise at.fail("must be a smaller budget level than the run's, and named once")
        run = StudyResults(study, results.scale, results.seed, {}, level=level)
        _read_parts(run, _stored_parts(at, folder, manifest), at, comparing_only=True)
        results.levels[level] = run
    if (results.name, results.scale, results.seed, results.fingerprint) != (
        manifest["study"],
        manifest["scale"],
        manifest["seed"],
        manifest["fingerprint"],
    ):
        raise f.fail("its plans are not the run its manifest names")
    return results


def _stored_parts(f: Fields, folder: Path, manifest: dict[str, Any]) -> list[tuple[int | None, StudyData, Fields]]:
    """The parts of one budget level as stored (stages not yet read)."""
    raw_parts = f.get("parts", list)
    if not 1 <= len(raw_parts) <= 8:
        raise f.fail("must hold one to eight parts")
    return [_stored_part(Fields(raw, f"{f.source}: part {i}"), folder, manifest) for i, raw in enumerate(raw_parts)]


def _read_parts(
    results: StudyResults, stored: list[tuple[int | None, StudyData, Fields]], f: Fields, comparing_only: bool
) -> None:
    """Put the stored parts of one budget level into ``results``, each checked to be the part of
    the study it names, its stages (at a smaller level, those that compare families) and kept
    measures read."""
    study = results.study
    expected = study.parts()
    if [part for part, _, _ in stored] != list(expected):
        raise f.fail(f"its parts are not those of its study ({', '.join(map(str, expected))})")
    for part, data, p in stored:
        if data.plan.study.name != expected[part].name or dict(data.plan.study.game_params) != dict(
            expected[part].game_params
        ):
            raise p.fail("is not the part of the study it names")
        if data.plan.seed != results.seed:
            raise p.fail("was run with another master seed than the run's")
        results.parts[part] = data
        data.stages.update(_stored_stages(p, study, results.scale, data, comparing_only))
        if comparing_only and "kept" in p.data:
            raise p.fail("keeps measures of players, which no report reads at a smaller budget level")
        if not comparing_only:
            _stored_kept(p, study, data)


def _stored_part(p: Fields, folder: Path, manifest: dict[str, Any]) -> tuple[int | None, StudyData, Fields]:
    """One part's key, data (plan, settings, every result; stages not yet read) and fields."""
    part = p.get("part", (int, type(None)))
    if part is not None and (isinstance(part, bool) or not 0 <= part <= limits.MAX_COUNT):
        raise p.fail("field 'part' must be a whole number or null")
    plan = stored_plan(p)
    if plan.fingerprint != p.get("fingerprint", str):
        raise p.fail("its plan does not match its fingerprint (edited?)")
    game = get_game(plan.study.game, plan.study.game_params)
    settings = stored_settings(p, plan)
    records = stored_records(p, plan, game, settings)
    shown = {k: clean_text(v, 200) for k, v in manifest["environment"].items()}
    return part, StudyData(plan, game, records, folder, settings, shown), p


def stored_definition(d: Fields, first: Plan, manifest: dict[str, Any]) -> Study:
    """The study as defined, rebuilt from the store and its first part's plan; every stage's
    settings checked as when a definition file is read."""
    if d.get("name", str) != manifest["study"]:
        raise d.fail("names another study than its manifest")
    if not all(isinstance(name, str) for name in d.get("stages", list)):
        raise d.fail("field 'stages' must list stage names")
    try:
        report_entry(d.get("report", str))
        for name in d.get("stages", list):
            stage(name)
    except FsmarenaError as exc:
        raise d.fail(str(exc)) from None
    names = d.get("stages", list)
    if len(set(names)) != len(names):
        raise d.fail("names a stage twice")
    sweep = d.get("sweep", (list, type(None)))
    if sweep is not None:
        if not (len(sweep) == 2 and isinstance(sweep[0], str) and _NAME.match(sweep[0]) and isinstance(sweep[1], list)):
            raise d.fail("field 'sweep' must be [parameter, [values]]")
        if not 1 <= len(sweep[1]) <= 8 or not all(isinstance(v, int) and not isinstance(v, bool) for v in sweep[1]):
            raise d.fail("field 'sweep' must hold 1 to 8 whole numbers")
    options = d.get("options", dict)
    scale_options = Fields(d.get("scale_options", dict), f"{d.source}: scale_options")
    scale = first.scale
    base = first.study
    params = {k: v for k, v in base.game_params.items() if sweep is None or k != sweep[0]}
    study = dataclasses.replace(
        base,
        name=manifest["study"],
        title=clean_text(d.get("title", str), 300),
        version=d.int_in("version", 0, limits.MAX_COUNT),
        question=clean_text(d.get("question", str), 5000, keep_lines=True),
        game_params=params,
        report=d.data["report"],
        stages=tuple(names),
        sweep=None if sweep is None else (sweep[0], tuple(sweep[1])),
        options=options,
        scales={scale.name: dataclasses.replace(scale, options=scale_options.get(scale.name, dict))},
    )
    try:
        for name in study.stages:
            stage(name).check(study)
    except FsmarenaError as exc:
        raise d.fail(str(exc)) from None
    return study


def _stored_stages(p: Fields, study: Study, scale: str, data: StudyData, comparing_only: bool) -> dict[str, Any]:
    """Every stage's stored result, each validated by its stage: exactly the study's stages
    that apply to the part, in order (at a smaller budget level, those that compare families)."""
    raw = Fields(p.get("stages", dict), f"{p.source}: stages")
    applying = stages_to_run(study, data, comparing_only)
    if list(raw.data) != applying:
        raise raw.fail(f"must hold exactly the results of the stages {', '.join(applying) or '(none)'}")
    context = StageContext(study, scale, data)
    return {name: stage(name).read(raw.data[name], f"{raw.source}: {name}", context) for name in applying}


def _stored_kept(p: Fields, study: Study, data: StudyData) -> None:
    """The kept measures, where the study's report reads them (and only there)."""
    if report_entry(study.report).keeps_measures:
        data.kept = read_kept(p.data.get("kept"), p.source, data)
    elif "kept" in p.data:
        raise p.fail("keeps measures of players that its report does not read")


def gunzip(path: Path, source: str) -> str:
    """The text of a gzip file, at most :data:`limits.MAX_JSON_BYTES` once decompressed."""
    packed = read_bytes(path, "published results", MAX_STORE_BYTES)
    reader = zlib.decompressobj(wbits=31)
    try:
        text = reader.decompress(packed, limits.MAX_JSON_BYTES + 1)
    except zlib.error as exc:
        raise FsmarenaError(f"{source} is not a gzip file: {exc}") from None
    if len(text) > limits.MAX_JSON_BYTES or reader.unconsumed_tail:
        raise FsmarenaError(f"{source} is too large once decompressed (more than {limits.MAX_JSON_BYTES} bytes)")
    if not reader.eof:
        raise FsmarenaError(f"{source} is truncated")
    check_one_member(reader, source)
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError:
        raise FsmarenaError(f"{source} is not UTF-8 text") from None


def read_manifest(m: Fields) -> dict[str, Any]:
    wall = m.get("wall_seconds", (float, type(None)))
    environment = Fields(m.get("environment", dict), f"{m.source}: environment")
    if len(environment.data) > 50 or not all(isinstance(v, str) for v in environment.data.values()):
        raise environment.fail("must map at most 50 names to version texts")
    return {
        "study": m.get("study", str),
        "scale": m.get("scale", str),
        "seed": m.int_in("seed", 0, limits.MAX_SEED),
        "fingerprint": m.get("fingerprint", str),
        "command": clean_text(m.get("command", str), 1000),
        "tasks": m.int_in("tasks", 1, limits.MAX_COUNT),
        "cpu_seconds": m.number_in("cpu_seconds", 0.0, 1e12),
        "wall_seconds": None if wall is None else m.number_in("wall_seconds", 0.0, 1e12),
        "finished": clean_text(m.get("finished", str), 40),
        "added": clean_text(m.get("added", str), 40),
        "environment": dict(environment.data),
    }


def stored_plan(f: Fields) -> Plan:
    """The plan of the stored run, rebuilt from the stored plan and study texts."""
    s = Fields(f.get("study", dict), f"{f.source}: study")
    p = Fields(f.get("plan", dict), f"{f.source}: plan")
    competitors = []
    for i, raw in enumerate(p.get("competitors", list)):
        c = Fields(raw, f"{f.source}: plan competitor {i}")
        if not _COMPETITOR.match(c.get("name", str)):
            raise c.fail("field 'name' must be a competitor name (letters, digits, '.', '_', '-')")
        needs = c.get("needs", list)
        if not all(isinstance(n, str) for n in needs):
            raise c.fail("field 'needs' must list names")
        competitors.append(
            Competitor(
                name=c.get("name", str),
                label=clean_text(c.get("label", str), 80),
                method=clean_text(c.get("method", str), 80),
                params=c.get("params", dict),
                needs=tuple(needs),
                replicates=c.int_in("replicates", 1, limits.MAX_COUNT),
                tune=c.get("tune", dict, {}),
            )
        )
    if not competitors:
        raise p.fail("names no competitor")
    panel = p.get("panel", list)
    questions = s.get("questions", list)
    names = {c.name for c in competitors}
    if not all(isinstance(x, str) for x in panel) or not all(
        isinstance(q, list) and len(q) == 2 and set(q) <= names for q in questions
    ):
        raise f.fail("panel and questions must name builtins and competitors")
    scale = Scale(
        name=p.get("scale", str),
        replicates=max(c.replicates for c in competitors),
        panel_games=p.int_in("panel_games", 1, limits.MAX_GAMES),
        crossplay_halfwidth=p.number_in("crossplay_halfwidth", 1e-6, 1.0),
        description=clean_text(s.get("scale_description", str), 1000),
        # absent from stores written before it was kept: those reports did not show it
        compare_at_smallest_budget=s.get("compare_at_smallest_budget", bool, False),
    )
    game_params = p.get("game_params", dict)
    best_known = _best_known(Fields(s.get("best_known", dict, {}), f"{f.source}: study best_known"))
    study = Study(
        name=p.get("study", str),
        version=p.get("version", int),
        title=clean_text(s.get("title", str), 300),
        question=clean_text(s.get("question", str), 5000, keep_lines=True),
        game=p.get("game", str),
        seed=p.int_in("seed", 0, limits.MAX_SEED),
        panel=tuple(clean_text(x, 80) for x in panel),
        competitors=tuple(competitors),
        scales={scale.name: scale},
        game_params={str(k): v for k, v in game_params.items()},
        curve_opponent=p.get("curve_opponent", str),
        report=s.get("report", str),
        questions=tuple((a, b) for a, b in questions),
        best_known=best_known,
    )
    return Plan(study, scale, study.seed, tuple(competitors))


def stored_settings(f: Fields, plan: Plan) -> dict[str, dict[str, Any]]:
    stored = Fields(f.get("settings", dict), f"{f.source}: settings")
    settings = {c.name: stored.get(c.name, dict) for c in plan.competitors}
    if set(stored.data) != set(settings):
        raise stored.fail("must hold exactly the settings of the plan's competitors")
    return settings


def stored_records(
    f: Fields, plan: Plan, game: Any, settings: dict[str, dict[str, Any]]
) -> dict[tuple[str, int], Record]:
    """Every task's result, each validated as the runner validates a result file."""
    results = f.get("results", list)
    expected = {(c.name, r) for c in plan.competitors for r in range(c.replicates)}
    if len(results) != len(expected):
        raise f.fail(f"holds {len(results)} results for the plan's {len(expected)} tasks")
    records: dict[tuple[str, int], Record] = {}
    for i, raw in enumerate(results):
        entry = Fields(raw, f"{f.source}: result {i}")
        key = (entry.get("competitor", str), entry.get("replicate", int))
        if key not in expected or key in records:
            raise entry.fail("is not one of the plan's tasks, or a second result of one")
        name, replicate = key
        player = UnkeptPlayer(champion_label(name, replicate))
        records[key] = parse_record(raw, entry.source, plan, game, name, replicate, settings[name], player)
    return records


def read_results(folder: str | os.PathLike) -> dict[str, Any]:
    """The decoded results file of a store, as stored (for tools and tests that edit it)."""
    path = Path(folder) / RESULTS
    return loads(gunzip(path, f"published results {path}"))


def write_results(folder: str | os.PathLike, results: dict[str, Any]) -> None:
    """Write the results file of a store back (:func:`results_bytes`)."""
    with atomic_path(Path(folder) / RESULTS) as tmp:
        tmp.write_bytes(results_bytes(results))


def results_bytes(results: dict[str, Any]) -> bytes:
    """A store's results file: compact JSON (a study of 1,320 champions' cross-play at two levels
    took 210 MB indented, 37 MB compact), gzip without a time stamp, so the same results give the
    same bytes; refused in one line if it could not be read back (:func:`gunzip`'s limit)."""
    text = (dumps(results, indent=None) + "\n").encode()
    if len(text) > limits.MAX_JSON_BYTES:
        raise FsmarenaError(
            f"the results take {len(text):,} bytes once decompressed, over the {limits.MAX_JSON_BYTES:,} a store may hold"
        )
    return gzip.compress(text, compresslevel=9, mtime=0)


# ---- what a store keeps of the measures that play its players --------------------------------


def _best_known(b: Fields) -> dict[str, Any]:
    """The study's ``[best_known]`` settings: opponents (names) and budgets (scale -> games)."""
    found: dict[str, Any] = {}
    if "opponents" in b.data:
        opponents = b.get("opponents", list)
        if not opponents or not all(isinstance(o, str) and _COMPETITOR.match(o) for o in opponents):
            raise b.fail("field 'opponents' must list opponent names")
        found["opponents"] = opponents
    budgets = Fields(b.get("budgets", dict, {}), f"{b.source}: budgets")
    found["budgets"] = {scale: budgets.int_in(scale, 1, limits.MAX_GAMES) for scale in budgets.data}
    if set(b.data) - {"opponents", "budgets"}:
        raise b.fail("holds fields other than 'opponents' and 'budgets'")
    return found
