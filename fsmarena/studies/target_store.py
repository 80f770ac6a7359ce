"""Published runs of a study with a target and a table (:mod:`fsmarena.studies.target_study`, 31).

Such a run is a standard study folder (``study.json`` names the study) with two more raw files:
each family's confirmation match (``raw/confirm.json``) and every entrant at the table of more
players (``raw/table.json``).  Its store, ``published/<study>/``, holds what a standard store
holds (:mod:`fsmarena.studies.store`: the plan, settings, every result without its player, the cross-play
counts and the measures the report takes by playing the players) and, beside them, the
driver's own settings (target, reference, table, games) and those two sets of counts; the
manifest names the driver (``"driver": "target"``).  ``--add`` takes the confirmation and table
counts from the folder (played again there, as ``fsmarena study`` would on a resume, if they do
not match its champions); reading validates them against the plan, so a damaged store is one
clear error.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, read_json
from fsmarena.games import get_game
from fsmarena.studies.kept_measures import measure_kept
from fsmarena.studies.protocol import get_study, study_names
from fsmarena.studies.provenance import run_environment
from fsmarena.studies.runner import MARKER, StudyData, champion_label, run_crossplay
from fsmarena.studies.store import (
    EXTRA_PACKAGES,
    PUBLISHED,
    STORE_FORMAT,
    finished_results,
    open_store,
    run_manifest,
    stored_study,
    study_json,
    write_store,
)
from fsmarena.studies.target_report import TargetRaw
from fsmarena.studies.target_study import TargetStudy, arrangements, confirm, run_table
from fsmarena.text import clean_text

DRIVER = "target"


@dataclass
class TargetStore:
    """One published run of a study with a target and a table: its manifest and what its report reads."""

    manifest: dict[str, Any]
    study: TargetStudy
    data: StudyData
    raw: TargetRaw

    @property
    def name(self) -> str:
        return self.study.name

    @property
    def settings(self) -> dict[str, dict[str, Any]]:
        return self.data.settings


def is_target_run(path: str | os.PathLike) -> bool:
    """Whether ``path`` is the folder of a run of a study with a target and a table."""
    marker = Path(path) / MARKER
    if not marker.is_file():
        return False
    name = Fields(read_json(marker, "study marker"), f"study marker {marker}").get("study", str)
    return name in study_names() and isinstance(get_study(name), TargetStudy)


def _definition(study: TargetStudy, scale: str) -> dict[str, Any]:
    """The driver's settings at ``scale``, as the store keeps them."""
    return {
        "target": study.target,
        "reference": study.reference,
        "table_players": study.table_players,
        "table_opponents": list(study.table_opponents),
        "table_references": list(study.table_references),
        "confirm_games": study.confirm_games[scale],
        "table_games": study.table_games[scale],
        "reference_result": None if study.reference_result is None else list(study.reference_result),
    }


def add_target(out: str | os.PathLike, root: str | os.PathLike) -> Path:
    """Store the finished run in ``out`` into ``root/published/<study>/``; returns the store's folder."""
    out = Path(out)
    marker = Fields(read_json(out / MARKER, "study marker"), f"study marker {out / MARKER}")
    study = get_study(marker.get("study", str))
    assert isinstance(study, TargetStudy)  # is_target_run chose this store
    scale = marker.get("scale", str)
    study.check_scale(scale, study.confirm_games)
    plan = study.base.plan(scale, marker.get("seed", int))
    if marker.get("fingerprint", str) != plan.fingerprint:
        raise FsmarenaError(
            f"{out} was run with another definition of study '{study.name}': run it again with this version"
        )
    found, settings = finished_results(out, plan)
    records = {(record.competitor, record.replicate): record for _, record in found.values()}
    data = StudyData(plan, get_game(plan.study.game, plan.study.game_params), records, None, out, settings)
    data.crossplay = run_crossplay(data, 1, _quiet)
    confirmed = confirm(data, study.reference, study.confirm_games[scale], 1, _quiet)
    _, table = run_table(data, study, study.table_games[scale], 1, _quiet)
    tasks = [{k: v for k, v in result.items() if k != "player"} for result, _ in found.values()]
    results = {
        "format_version": STORE_FORMAT,
        "driver": DRIVER,
        "study": study_json(plan.study, plan),
        "plan": plan.to_json(),
        "fingerprint": plan.fingerprint,
        "settings": settings,
        "results": tasks,
        "crossplay": data.crossplay.to_json(),
        "kept": measure_kept(data),
        "definition": _definition(study, scale),
        "confirm": confirmed,
        "table": table,
    }
    environment = run_environment((*EXTRA_PACKAGES, "scikit-learn"))
    environment["fsmarena"] = marker.get("fsmarena", str)
    identity = {
        "driver": DRIVER,
        "study": study.name,
        "scale": scale,
        "seed": plan.seed,
        "fingerprint": plan.fingerprint,
    }
    manifest = run_manifest(identity, out, list(found), tasks, environment)
    return write_store(Path(root) / PUBLISHED / study.name, manifest, results)


def _quiet(_: str) -> None:
    """No progress lines while adding (the folder's games are reused, or played again quietly)."""


# ---- reading a store --------------------------------------------------------------------------


def load_target(path: str | os.PathLike) -> TargetStore:
    """Read and validate one store of a study with a target and a table (one clear error if damaged)."""
    path = Path(path)
    manifest, f = open_store(path)
    if manifest["driver"] != DRIVER or f.get("driver", str) != DRIVER:
        raise FsmarenaError(f"{path} holds no run of the '{DRIVER}' driver")
    data = stored_study(f, path, manifest["environment"])
    plan = data.plan
    if (plan.study.name, plan.scale.name, plan.seed, plan.fingerprint) != (
        manifest["study"],
        manifest["scale"],
        manifest["seed"],
        manifest["fingerprint"],
    ):
        raise f.fail("its plan is not the run its manifest names")
    study = _stored_definition(Fields(f.get("definition", dict), f"{f.source}: definition"), data)
    scale = plan.scale.name
    raw = TargetRaw(
        _confirmed(f.get("confirm", list), f"{f.source}: confirm", data, study.confirm_games[scale]),
        _table(f.get("table", list), f"{f.source}: table", data, study, study.table_games[scale]),
    )
    return TargetStore(manifest, study, data, raw)


def _stored_definition(d: Fields, data: StudyData) -> TargetStudy:
    """The driver's settings, checked against the plan (the reference and table players are
    builtins of the panel's game; every count is possible)."""
    plan, scale = data.plan, data.plan.scale.name
    opponents, references = d.get("table_opponents", list), d.get("table_references", list)
    seats = d.int_in("table_players", 3, 6)
    names = [*opponents, *references]
    if len(opponents) != seats - 1 or not all(isinstance(x, str) and len(x) <= 80 for x in names):
        raise d.fail(f"'table_opponents' must name the {seats - 1} builtins in the other seats")
    reference = d.get("reference", str)
    if reference not in plan.study.panel:
        raise d.fail("its reference is not one of the panel's builtins")
    result = d.get("reference_result", (list, type(None)))
    shown = None
    if result is not None:
        if len(result) != 2 or not isinstance(result[1], str) or isinstance(result[0], bool):
            raise d.fail("'reference_result' must be [value, what it is]")
        if not isinstance(result[0], (int, float)) or not 0 <= result[0] <= 1:
            raise d.fail("'reference_result' must be a rate in [0, 1]")
        shown = (float(result[0]), clean_text(result[1], 120))
    return TargetStudy(
        plan.study,
        d.number_in("target", 0.0, 1.0),
        reference,
        seats,
        tuple(opponents),
        tuple(references),
        {scale: d.int_in("confirm_games", 1, limits.MAX_GAMES)},
        {scale: d.int_in("table_games", 1, limits.MAX_GAMES)},
        shown,
    )


def _counts(r: Fields, games: int) -> dict[str, int]:
    counts = {k: r.int_in(k, 0, games) for k in ("games", "wins", "draws", "losses")}
    if counts["games"] != games or counts["wins"] + counts["draws"] + counts["losses"] != games:
        raise r.fail(f"its counts must add up to the {games:,} games it played")
    return counts


def _confirmed(raw: list, source: str, data: StudyData, games: int) -> list[dict[str, Any]]:
    """One confirmation match per competitor, in order, by one of its champions."""
    competitors = data.plan.competitors
    if len(raw) != len(competitors):
        raise FsmarenaError(f"{source}: must hold one confirmation match per competitor ({len(competitors)})")
    rows = []
    for i, (entry, c) in enumerate(zip(raw, competitors)):
        r = Fields(entry, f"{source}: row {i}")
        if r.get("competitor", str) != c.name:
            raise r.fail(f"must be competitor '{c.name}''s match")
        rows.append(
            {"competitor": c.name, "replicate": r.int_in("replicate", 0, c.replicates - 1), **_counts(r, games)}
        )
    return rows


def _table(raw: list, source: str, data: StudyData, study: TargetStudy, games: int) -> list[dict[str, Any]]:
    """One row per table entrant (every champion, then every reference builtin), in order."""
    plan = data.plan
    entrants = [(champion_label(c.name, r), c.label) for c in plan.competitors for r in range(c.replicates)]
    entrants += [(name, name) for name in study.table_references]
    per = len(arrangements(study.table_players))
    played = math.ceil(games / per) * per
    if len(raw) != len(entrants):
        raise FsmarenaError(f"{source}: must hold one row per table entrant ({len(entrants)})")
    rows = []
    for i, (entry, (label, group)) in enumerate(zip(raw, entrants)):
        r = Fields(entry, f"{source}: row {i}")
        if r.get("entrant", str) != label or r.get("group", str) != group:
            raise r.fail(f"must be the row of '{label}' (group '{group}')")
        counts = _counts(r, played)
        other = r.int_array("other_wins", (study.table_players - 1,), 0, played + 1).tolist()
        if sum(other) > counts["losses"]:
            raise r.fail("its opponents won more games than it lost")
        rows.append({"entrant": label, "group": group, **counts, "other_wins": other})
    return rows
