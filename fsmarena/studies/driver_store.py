"""Published runs of a study over several player counts (:mod:`fsmarena.studies.player_counts`).

Such a run (``fsmarena study vautour --out DIR``) is one standard study per player count in
``DIR/<n>-players/``, a league each and, in a solvable game, every champion's exact
exploitability.  Its store, ``published/<study>/``, has the two files of every store
(:mod:`fsmarena.studies.store`), the manifest naming the driver (``"driver": "player-counts"``) and the
fingerprints of every part, and the results holding the study's own texts and, per player count,
what the report builder (:mod:`fsmarena.studies.player_counts_report`) reads: the plan, the resolved
settings, every replicate task's result without its player, the cross-play counts (two seats),
the league's counts and the exploitability rows.  Nothing is replayed when reading: the league
and the cross-play are validated against the plan (entrants, pairings, games), the results as
the runner validates them, so a damaged store is one clear error.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, read_json
from fsmarena.games import get_game
from fsmarena.studies.exploitability import EXPLOIT_FILE, read_rows
from fsmarena.studies.player_counts import MARKER, PlayerCountStudy, folder, read_league
from fsmarena.studies.player_counts_report import PartData, PlayerCountRun
from fsmarena.studies.protocol import Plan, get_study, study_names
from fsmarena.studies.provenance import run_environment
from fsmarena.studies.runner import StudyData, champion_label, measures_exploitability, run_crossplay
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
from fsmarena.text import clean_text

DRIVER = "player-counts"


@dataclass
class PlayerCountStore:
    """One published run of a several-player-count study: its manifest and the data its report reads."""

    manifest: dict[str, Any]
    run: PlayerCountRun

    @property
    def name(self) -> str:
        return self.run.name

    @property
    def settings(self) -> dict[str, dict[str, Any]]:
        """Every competitor's resolved settings, per player count (``<competitor>.<n>p``)."""
        return {f"{c}.{n}p": s for n, part in self.run.parts.items() for c, s in part.data.settings.items()}


def is_player_count_run(path: str | os.PathLike) -> bool:
    """Whether ``path`` is the folder of a several-player-count run (it holds the driver's marker)."""
    return (Path(path) / MARKER).is_file()


# ---- adding a finished run --------------------------------------------------------------------


def add_player_counts(out: str | os.PathLike, root: str | os.PathLike) -> Path:
    """Store the finished run in ``out`` into ``root/published/<study>/`` (replacing a previous
    store of the same study); returns the store's folder."""
    out = Path(out)
    marker = Fields(read_json(out / MARKER, "study marker"), f"study marker {out / MARKER}")
    name = marker.get("study", str)
    if name not in study_names():
        raise marker.fail(f"names study '{clean_text(name, 80)}': published/ holds the named studies only")
    study = get_study(name)
    if not isinstance(study, PlayerCountStudy):
        raise marker.fail(f"names study '{name}', which is not run over several player counts")
    scale = marker.get("scale", str)
    study.check_scale(scale, study.league_games)
    plans = study.plans(scale, marker.get("seed", int))
    fingerprints = {str(n): p.fingerprint for n, p in plans.items()}
    if marker.get("fingerprints", dict) != fingerprints or marker.get("league_games", int) != study.league_games[scale]:
        raise FsmarenaError(f"{out} was run with another definition of study '{name}': run it again with this version")
    parts = [_stored_part(folder(out, n), n, plan, study.league_games[scale]) for n, plan in plans.items()]
    tasks = [task for part in parts for task in part["results"]]
    environment = run_environment(EXTRA_PACKAGES)
    environment["fsmarena"] = marker.get("fsmarena", str)
    results = {
        "format_version": STORE_FORMAT,
        "driver": DRIVER,
        "study": {
            "name": name,
            "title": study.base.title,
            "version": study.base.version,
            "question": study.base.question,
            "reference": study.reference,
            "league_games": study.league_games[scale],
        },
        "parts": parts,
    }
    identity = {
        "driver": DRIVER,
        "study": name,
        "scale": scale,
        "seed": next(iter(plans.values())).seed,
        "fingerprint": ",".join(fingerprints.values()),
    }
    manifest = run_manifest(identity, out, list(out.rglob("replicates/*/r*.json")), tasks, environment)
    return write_store(Path(root) / PUBLISHED / name, manifest, results)


def _stored_part(out: Path, n: int, plan: Plan, needed: int) -> dict[str, Any]:
    """What the store keeps of one player count's finished folder (one clear error when a part
    is missing or not this plan's)."""
    found, settings = finished_results(out, plan)
    game = get_game(plan.study.game, plan.study.game_params)
    records = {(record.competitor, record.replicate): record for _, record in found.values()}
    data = StudyData(plan, game, records, None, out, settings)
    crossplay = run_crossplay(data, 1, lambda _: None) if game.n_seats == 2 and len(records) >= 2 else None
    try:
        league = read_league(read_json(out / "raw" / "league.json", "league file"), f"league file {out}", plan, needed)
        exploitability = None
        if measures_exploitability(game):
            path = out / "raw" / EXPLOIT_FILE
            raw = Fields(read_json(path, "exploitability file"), f"exploitability file {path}")
            if raw.get("fingerprint", str) != plan.fingerprint:
                raise raw.fail("belongs to another study protocol")
            exploitability = read_rows(raw.get("rows", list), raw.source, _exploited(plan))
    except FsmarenaError as exc:
        raise FsmarenaError(f"{out} is not a finished run: {exc}") from None
    return {
        "players": n,
        "study": study_json(plan.study, plan),
        "plan": plan.to_json(),
        "fingerprint": plan.fingerprint,
        "settings": settings,
        "results": [{k: v for k, v in result.items() if k != "player"} for result, _ in found.values()],
        "crossplay": None if crossplay is None else crossplay.to_json(),
        "league": {"fingerprint": plan.fingerprint, "needed": needed, **league.to_json()},
        "exploitability": exploitability,
    }


def _exploited(plan: Plan) -> list[tuple[str, str]]:
    """The players and their groups, in order, of a part's exploitability rows."""
    champions = [(champion_label(c.name, r), c.label) for c in plan.competitors for r in range(c.replicates)]
    return [("equilibrium", "equilibrium"), *champions, *((name, name) for name in plan.study.panel)]


# ---- reading a store --------------------------------------------------------------------------


def load_player_counts(path: str | os.PathLike) -> PlayerCountStore:
    """Read and validate one store of a several-player-count run (one clear error if damaged)."""
    path = Path(path)
    manifest, f = open_store(path)
    if manifest["driver"] != DRIVER:
        raise FsmarenaError(f"{path} holds no run of the '{DRIVER}' driver")
    if f.get("driver", str) != DRIVER:
        raise f.fail(f"field 'driver' must be '{DRIVER}'")
    s = Fields(f.get("study", dict), f"{f.source}: study")
    if s.get("name", str) != manifest["study"]:
        raise s.fail("names another study than its manifest")
    raw_parts = f.get("parts", list)
    if not 1 <= len(raw_parts) <= 4:
        raise f.fail("must hold one to four player counts")
    fingerprints = manifest["fingerprint"].split(",")
    if len(fingerprints) != len(raw_parts):
        raise f.fail("holds another number of player counts than its manifest")
    reference, needed = clean_text(s.get("reference", str), 80), s.int_in("league_games", 1, limits.MAX_GAMES)
    parts = {}
    for i, (raw, fingerprint) in enumerate(zip(raw_parts, fingerprints)):
        p = Fields(raw, f"{f.source}: part {i}")
        n = p.int_in("players", 2, 5)
        data = stored_study(p, path / f"{n}-players", manifest["environment"], kept=False)
        plan = data.plan
        if n in parts or data.game.n_seats != n or plan.fingerprint != fingerprint:
            raise p.fail("is not the player count its manifest names")
        if (plan.scale.name, plan.seed) != (manifest["scale"], manifest["seed"]) or reference not in plan.study.panel:
            raise p.fail("its plan is not the run its manifest names")
        league = read_league(p.get("league", dict), f"{p.source}: league", plan, needed)
        parts[n] = PartData(data, league, _stored_exploitability(p, plan, data))
    run = PlayerCountRun(
        manifest["study"],
        clean_text(s.get("title", str), 300),
        s.int_in("version", 0, limits.MAX_COUNT),
        clean_text(s.get("question", str), 5000, keep_lines=True),
        manifest["scale"],
        reference,
        needed,
        parts,
    )
    return PlayerCountStore(manifest, run)


def _stored_exploitability(p: Fields, plan: Plan, data: StudyData) -> list[dict[str, Any]] | None:
    raw = p.get("exploitability", (list, type(None)))
    if measures_exploitability(data.game) != (raw is not None):
        raise p.fail("its exploitability rows do not match whether its game is solvable")
    return None if raw is None else read_rows(raw, f"{p.source}: exploitability", _exploited(plan))


def with_folder(run: PlayerCountRun, out: Path) -> PlayerCountRun:
    """``run`` with every part's tables going to ``out/<n>-players`` (a scratch folder)."""
    parts = {n: replace(part, data=replace(part.data, out=out / f"{n}-players")) for n, part in run.parts.items()}
    return replace(run, parts=parts)
