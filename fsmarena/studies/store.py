"""Published results: one finished study run kept as data in ``published/<study>/``.

A study folder (:mod:`fsmarena.studies.runner`) holds players, figures and tables; the published store of
the same run holds only what its report reads, so that every number of the results pages can be
regenerated from the repository alone (:mod:`fsmarena.studies.publish`), without re-running anything::

    published/<study>/manifest.json     the run: study, scale, master seed, plan fingerprint, the
                                        exact command, versions, CPU and wall time, dates
    published/<study>/results.json.gz   the plan, every competitor's resolved settings, every
                                        replicate task's result (panel results, final scores,
                                        curves, seeds, method information: the result file
                                        without its player), the cross-play counts and, for a
                                        study with the standard report, what its report measures
                                        by playing the players ("kept": machine sizes and usage,
                                        fingerprints, best-known lines)

No player and no checkpoint is kept: what the standard report measures by playing them is
measured once at ``--add`` time from the study folder (:mod:`fsmarena.studies.machines`,
:mod:`fsmarena.studies.reference_line`; the cross-play from its ``raw/crossplay.json``, replayed there if
it does not match) and read back as ``StudyData.kept`` by those modules.  :func:`add_study` stores a finished study folder (refusing
an unfinished or foreign one) and replaces the store atomically; :func:`load_store` reads a
store back into the :class:`~studies.runner.StudyData` the report builders take, validating
everything as the study's own readers do: a damaged or hostile store ends in one clear error.

The store is rebuilt from itself: the study's title, question and declared questions are kept
with the plan, and the plan is checked against its fingerprint, so a later change of the study's
TOML file does not change (or break) what a published run says.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import tempfile
import time
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, atomic_path, dumps, loads, read_bytes, read_json, read_text, write_json
from fsmarena.games import get_game
from fsmarena.games.players import Player
from fsmarena.stored_values import check_one_member, check_stored
from fsmarena.studies import player_counts
from fsmarena.studies.crossplay import CrossplayResult, pairing_games
from fsmarena.studies.kept_measures import measure_kept, read_kept
from fsmarena.studies.methods import check_competitors
from fsmarena.studies.protocol import Competitor, Plan, Scale, Study, StudyDriver, get_study, study_names
from fsmarena.studies.provenance import run_environment
from fsmarena.studies.runner import MARKER, Record, StudyData, champion_label, parse_record, result_path, run_crossplay
from fsmarena.text import clean_text

#: the folder of the published runs, under the root of a checkout
PUBLISHED = "published"
MANIFEST = "manifest.json"
RESULTS = "results.json.gz"
STORE_FORMAT = 1
#: a store's compressed results may take at most this many bytes (a few MB per study is the aim)
MAX_STORE_BYTES = 32 * 1024 * 1024
#: packages whose versions a manifest records beside the report's own list
EXTRA_PACKAGES = ("numba",)
#: study names are folder names under ``published/``
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_COMPETITOR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class UnkeptPlayer(Player):
    """Stands in for a published result's player: the store keeps none, so a report section
    that would play it fails with one clear line instead of a wrong page."""

    kind = "unkept"

    def act(self, obs: Any, memory: Any, rows: Any, rng: Any) -> np.ndarray:
        raise FsmarenaError(f"{self.label}: published results keep no players; this needs the study folder itself")


@dataclass
class Store:
    """One published run: its manifest and the study data its report reads."""

    manifest: dict[str, Any]
    data: StudyData

    @property
    def name(self) -> str:
        return self.data.plan.study.name

    @property
    def settings(self) -> dict[str, dict[str, Any]]:
        """Every competitor's resolved settings."""
        return self.data.settings


# ---- adding a finished study folder ----------------------------------------------------------


def add_study(folder: str | os.PathLike, root: str | os.PathLike) -> Path:
    """Store the finished study folder ``folder`` into ``root/published/<study>/`` (replacing a
    previous store of the same study); returns the store's folder."""
    folder = Path(folder)
    plan, found, settings = _finished_run(folder)
    crossplay, kept = _measured(folder, plan, settings, found)
    study = plan.study
    marker = Fields(read_json(folder / MARKER, "study marker"), f"study marker {folder / MARKER}")
    environment = run_environment(EXTRA_PACKAGES)
    environment["fsmarena"] = marker.get("fsmarena", str)
    tasks = [{k: v for k, v in result.items() if k != "player"} for result, _ in found.values()]
    results = {
        "format_version": STORE_FORMAT,
        "study": study_json(study, plan),
        "plan": plan.to_json(),
        "fingerprint": plan.fingerprint,
        "settings": settings,
        "results": tasks,
        "crossplay": None if crossplay is None else crossplay.to_json(),
    }
    if kept is not None:  # a study with its own report keeps nothing more
        results["kept"] = kept
    identity = {"study": study.name, "scale": plan.scale.name, "seed": plan.seed, "fingerprint": plan.fingerprint}
    manifest = run_manifest(identity, folder, list(found), tasks, environment)
    return write_store(Path(root) / PUBLISHED / study.name, manifest, results)


def run_manifest(
    identity: dict[str, Any], folder: Path, files: list[Path], tasks: list[dict[str, Any]], environment: dict[str, str]
) -> dict[str, Any]:
    """The manifest of a store: ``identity`` (``study``, ``scale``, ``seed``, ``fingerprint`` and, for a
    study with a driver of its own, ``driver``), the command and wall time of the run in ``folder``,
    its task count and CPU time (the sum over ``tasks``), when it finished (the newest of the
    result ``files``) and was added, and the ``environment`` it ran in."""
    command, wall_seconds = command_and_wall_time(folder)
    finished = max(path.stat().st_mtime for path in files)
    return {
        "format_version": STORE_FORMAT,
        **identity,
        "command": command,
        "tasks": len(tasks),
        "cpu_seconds": round(sum(task["cpu_seconds"] for task in tasks), 1),
        "wall_seconds": wall_seconds,
        "finished": datetime.fromtimestamp(finished, timezone.utc).strftime("%Y-%m-%d"),
        "added": time.strftime("%Y-%m-%d", time.gmtime()),
        "environment": environment,
        "results": RESULTS,
    }


def _finished_run(
    folder: Path,
) -> tuple[Plan, dict[Path, tuple[dict[str, Any], Record]], dict[str, dict[str, Any]]]:
    """The plan, every result (by file, each read once and validated, with its record) and the
    resolved settings of a finished run in ``folder``; one clear error for a folder that is not
    a named study's, is another version's, or is not finished."""
    if not (folder / MARKER).is_file():
        raise FsmarenaError(f"{folder} is not a study folder (no {MARKER}); give the --out folder of `fsmarena study`")
    marker = Fields(read_json(folder / MARKER, "study marker"), f"study marker {folder / MARKER}")
    name = marker.get("study", str)
    if (folder.parent / player_counts.MARKER).is_file():
        raise FsmarenaError(f"{folder} is one player count of the run in {folder.parent}: give that folder")
    if name not in study_names() or not _NAME.match(name):
        raise marker.fail(f"names study '{clean_text(name, 80)}': published/ holds the named studies only")
    study = get_study(name)
    if isinstance(study, StudyDriver):
        raise FsmarenaError(
            f"study '{name}' runs its own driver: give the folder its run was written to (`fsmarena study {name} "
            "--out DIR`), not one of its parts"
        )
    plan = study.plan(marker.get("scale", str), marker.get("seed", int))
    if marker.get("fingerprint", str) != plan.fingerprint:
        raise FsmarenaError(
            f"{folder} was run with another definition of study '{name}' (protocol {marker.get('fingerprint', str)}, "
            f"this version's is {plan.fingerprint}): run it again with this version"
        )
    found, settings = finished_results(folder, plan)
    return plan, found, settings


def finished_results(
    folder: Path, plan: Plan
) -> tuple[dict[Path, tuple[dict[str, Any], Record]], dict[str, dict[str, Any]]]:
    """Every result of ``plan``'s tasks in ``folder`` (by file, each read once and validated,
    with its record) and the resolved settings; one clear error when one is missing or another's."""
    game = get_game(plan.study.game, plan.study.game_params)
    settings = check_competitors(plan, game)
    found = {}
    for c in plan.competitors:
        for r in range(c.replicates):
            path = result_path(folder, c.name, r)
            try:
                result = read_json(path, "study result")
                record = parse_record(result, f"study result {path}", plan, game, c.name, r, settings[c.name])
            except FsmarenaError as exc:
                raise FsmarenaError(f"{folder} is not a finished run: {exc}") from None
            found[path] = (result, record)
    return found, settings


def _measured(
    folder: Path, plan: Plan, settings: dict[str, dict[str, Any]], found: dict[Path, tuple[dict[str, Any], Record]]
) -> tuple[CrossplayResult | None, dict[str, Any] | None]:
    """What the run's report measures by playing its players: the cross-play counts (two-seat
    games; ``raw/crossplay.json``, played again in the folder if it does not match its
    champions) and, for the standard report, the measures a store keeps (JSON; read back by
    :func:`fsmarena.studies.kept_measures.read_kept` as ``StudyData.kept``)."""
    game = get_game(plan.study.game, plan.study.game_params)
    records = {(record.competitor, record.replicate): record for _, record in found.values()}
    data = StudyData(plan, game, records, None, folder, settings)
    if game.n_seats == 2 and len(records) >= 2:
        data.crossplay = run_crossplay(data, 1, lambda _: None)
    if plan.study.report:
        return data.crossplay, None
    return data.crossplay, measure_kept(data)


def command_and_wall_time(folder: Path) -> tuple[str, float | None]:
    """The exact command and the wall-clock time the run's ``report.md`` names (a run writes
    its report last, so a folder without one is not finished)."""
    path = folder / "report.md"
    if not path.is_file():
        raise FsmarenaError(f"{folder} is not a finished run: it has no report.md")
    text = read_text(path, "study report")
    found = re.search(r"^## Reproduce\n+```\n(fsmarena [^\n]+)\n```", text, re.M)
    if not found:
        raise FsmarenaError(f"study report {path} names no command (no '## Reproduce' block)")
    wall = re.search(r"^Wall-clock time of this invocation: ([0-9.]+) min\.", text, re.M)
    return clean_text(found.group(1), 1000), (round(60 * float(wall.group(1)), 1) if wall else None)


def study_json(study: Study, plan: Plan) -> dict[str, Any]:
    """What a report reads of the study beside its plan."""
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
        data = gzip.compress((dumps(results) + "\n").encode(), compresslevel=9, mtime=0)
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
        raise m.fail(f"unsupported format_version (this version reads {STORE_FORMAT})")
    name = m.get("study", str)
    if name != folder.name or not _NAME.match(name):
        raise m.fail(f"names study '{clean_text(name, 80)}', not its folder's '{folder.name}'")
    if m.get("results", str) != RESULTS:
        raise m.fail(f"field 'results' must be '{RESULTS}'")
    manifest = read_manifest(m)
    check_stored(m.data, m.source)  # its dates too (fsmarena.stored_values)
    source = f"published results {folder / RESULTS}"
    f = Fields(loads(gunzip(folder / RESULTS, source), source), source)
    check_stored({k: v for k, v in f.data.items() if k != "results"}, source)  # results: by parse_record
    if f.get("format_version", int) != STORE_FORMAT:
        raise f.fail(f"unsupported format_version (this version reads {STORE_FORMAT})")
    return manifest, f


def load_store(folder: str | os.PathLike) -> Store:
    """Read and validate one store of a standard run into the data its report reads (one clear
    error if damaged)."""
    folder = Path(folder)
    manifest, f = open_store(folder)
    if manifest["driver"] is not None:
        raise FsmarenaError(f"{folder} holds a run of the '{manifest['driver']}' driver, not a standard run")
    data = stored_study(f, folder, manifest["environment"])
    plan = data.plan
    if plan.fingerprint != manifest["fingerprint"]:
        raise f.fail("its plan does not match its fingerprint (edited?)")
    if (plan.study.name, plan.scale.name, plan.seed) != (manifest["study"], manifest["scale"], manifest["seed"]):
        raise f.fail("its plan is not the run its manifest names")
    return Store(manifest, data)


def stored_study(f: Fields, folder: Path, environment: dict[str, str], kept: bool = True) -> StudyData:
    """One stored study (plan, settings, every result, cross-play and, for a standard run's
    report, the kept measures), validated."""
    plan = stored_plan(f)
    if plan.fingerprint != f.get("fingerprint", str):
        raise f.fail("its plan does not match its fingerprint (edited?)")
    game = get_game(plan.study.game, plan.study.game_params)
    settings = stored_settings(f, plan)
    records = stored_records(f, plan, game, settings)
    shown = {k: clean_text(v, 200) for k, v in environment.items()}
    data = StudyData(plan, game, records, stored_crossplay(f, plan, game), folder, settings, shown)
    if kept:
        data.kept = read_kept(f, data)
    elif "kept" in f.data:
        raise f.fail("keeps measures of players that its report does not read")
    return data


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
        "driver": m.get("driver", (str, type(None)), None),
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
    """Write the results file of a store back (deterministic gzip: no time stamp)."""
    with atomic_path(Path(folder) / RESULTS) as tmp:
        tmp.write_bytes(gzip.compress((dumps(results) + "\n").encode(), compresslevel=9, mtime=0))


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


def stored_crossplay(f: Fields, plan: Plan, game: Any) -> CrossplayResult | None:
    """The stored cross-play counts: every pairing of the plan's champions, as many games as
    the plan gives it; None for a study without cross-play (one-seat games)."""
    raw = f.get("crossplay", (dict, type(None)), None)
    keys = [(c.name, r) for c in plan.competitors for r in range(c.replicates)]
    if game.n_seats != 2 or len(keys) < 2:
        if raw is not None:
            raise f.fail("holds cross-play counts for a study without cross-play")
        return None
    if raw is None:
        raise f.fail("keeps no cross-play counts, which its report reads")
    result = CrossplayResult.from_json(raw, f"{f.source}: crossplay")
    n = len(keys)
    if (
        result.labels != [champion_label(*key) for key in keys]
        or result.families != [name for name, _ in keys]
        or result.replicates != [r for _, r in keys]
        or not np.array_equal(result.pairs, np.stack(np.triu_indices(n, k=1), axis=1))
        or not np.array_equal(result.games, pairing_games([name for name, _ in keys], plan.crossplay_games_needed()))
    ):
        raise f.fail("its cross-play counts are not the pairings of the plan's champions")
    return result
