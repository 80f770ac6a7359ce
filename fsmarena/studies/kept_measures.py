"""What a published store keeps of the measures that play a standard run's players.

A store keeps no player (:mod:`fsmarena.studies.store`), so the standard report's parts that play them
are measured once, when the run is added, from its study folder (:func:`measure_kept`: machine
sizes and usage, the best champions' fingerprints, the best-known lines) and read back,
validated against the plan, as ``StudyData.kept`` (:func:`read_kept`).
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.evo.fingerprint import Fingerprint, probe_family
from fsmarena.fileio import Fields
from fsmarena.studies.analysis import MACHINE_KINDS, analyse
from fsmarena.studies.machines import best_fingerprints, size_rows
from fsmarena.studies.reference_line import LINE_FIELDS, ensure_lines
from fsmarena.studies.reference_line import settings as line_settings
from fsmarena.studies.runner import StudyData, champion_label
from fsmarena.text import clean_text


def measure_kept(data: StudyData) -> dict[str, Any]:
    """The measures a store keeps of a finished run in ``data.out`` (its study folder: a
    best-known line missing there is searched and written there, as a resumed study would)."""
    with tempfile.TemporaryDirectory(prefix="fsmarena-add-") as scratch:  # its tables: nothing written in DIR
        analysis = analyse(replace(data, out=Path(scratch)), figures=False)
    try:
        family = probe_family(data.game)
    except FsmarenaError:
        prints = {}
    else:
        prints = best_fingerprints(data, analysis, family)
    kept = {
        "machine_sizes": size_rows(data),
        "fingerprints": [
            {"champion": champion_label(*key), **_fingerprint_json(result)} for key, result in prints.items()
        ],
        # a line missing from the folder is searched there, as `fsmarena study --resume` would
        "reference_lines": [{k: line[k] for k in LINE_FIELDS} for line in ensure_lines(data)],
    }
    return kept


def _fingerprint_json(result: Fingerprint) -> dict[str, Any]:
    return {
        "x": result.x.tolist(),
        "y": result.y.tolist(),
        "values": result.values.tolist(),
        "x_label": result.x_label,
        "y_label": result.y_label,
        "games": result.games,
    }


def read_kept(raw: Any, source: str, data: StudyData) -> dict[str, Any]:
    """What the report measures by playing the players, validated against the plan: machine
    size rows, the fingerprints of champions and the best-known lines."""
    if raw is None:
        raise FsmarenaError(
            f"{source}: keeps no measures of its players (machine sizes, fingerprints, best-known lines)"
        )
    k = Fields(raw, f"{source}: kept")
    if set(k.data) != {"machine_sizes", "fingerprints", "reference_lines"}:
        raise k.fail("must hold exactly 'machine_sizes', 'fingerprints' and 'reference_lines'")
    champions = {champion_label(*key): key[0] for key in data.records}
    sizes = [
        _size_row(Fields(r, f"{k.source}: machine size {i}"), data, champions)
        for i, r in enumerate(k.get("machine_sizes", list))
    ]
    prints: dict[str, Fingerprint] = {}
    for i, r in enumerate(k.get("fingerprints", list)):
        label, result = _fingerprint(Fields(r, f"{k.source}: fingerprint {i}"), champions)
        if label in prints:
            raise k.fail(f"holds two fingerprints of {label}")
        prints[label] = result
    lines = [Fields(r, f"{k.source}: reference line {i}") for i, r in enumerate(k.get("reference_lines", list))]
    chosen = line_settings(data)
    opponents, budget = chosen if chosen is not None else ([], 0)
    if [line.get("opponent", str) for line in lines] != opponents:
        raise k.fail("its best-known lines are not those of the study's opponents at this scale")
    return {"machine_sizes": sizes, "fingerprints": prints, "reference_lines": [_line(x, budget) for x in lines]}


def _size_row(r: Fields, data: StudyData, champions: dict[str, str]) -> dict[str, Any]:
    champion = r.get("champion", str)
    if champion not in champions:
        raise r.fail(f"names champion '{clean_text(champion, 80)}', not one of the run's")
    if (
        r.get("family", str) != data.plan.competitor(champions[champion]).label
        or r.get("kind", str) not in MACHINE_KINDS
    ):
        raise r.fail("its family or kind is not its champion's")
    counts = ("states", "reachable_states", "effective_states", "effective_states_in_play", "entries_used", "entries")
    row = {"champion": champion, "family": r.data["family"], "kind": r.data["kind"]}
    row.update({name: r.int_in(name, 0, limits.MAX_COUNT) for name in counts})
    row["usage_games"] = r.int_in("usage_games", 1, limits.MAX_GAMES)
    return row


def _fingerprint(r: Fields, champions: dict[str, str]) -> tuple[str, Fingerprint]:
    champion = r.get("champion", str)
    if champion not in champions:
        raise r.fail(f"names champion '{clean_text(champion, 80)}', not one of the run's")
    nx, ny = len(r.get("x", list)), len(r.get("y", list))
    if not (1 <= nx <= 100 and 1 <= ny <= 100):
        raise r.fail("its grid must have 1 to 100 points per axis")
    x, y = r.float_array("x", (nx,), 0.0, 1.0), r.float_array("y", (ny,), 0.0, 1.0)
    values = r.float_array("values", (ny, nx), 0.0, 1.0)
    labels = clean_text(r.get("x_label", str), 200), clean_text(r.get("y_label", str), 200)
    return champion, Fingerprint(champion, x, y, values, *labels, r.int_in("games", 1, limits.MAX_GAMES))


def _line(r: Fields, budget: int) -> dict[str, Any]:
    if r.int_in("budget", 1, limits.MAX_GAMES) != budget:
        raise r.fail("was searched with another budget than the study's at this scale")
    low, high = r.float_array("win_ci95", (2,), 0.0, 1.0)
    line = {
        "opponent": r.data["opponent"],
        "budget": budget,
        "seed": r.int_in("seed", 0, 2**64 - 1),
        "start": clean_text(r.get("start", str), 80),
        "win": r.number_in("win", 0.0, 1.0),
        "win_ci95": [float(low), float(high)],
        "confirm_games": r.int_in("confirm_games", 0, limits.MAX_GAMES),
        "games_used": r.int_in("games_used", 0, limits.MAX_GAMES),
        "sweeps": r.int_in("sweeps", 0, limits.MAX_COUNT),
        "seconds": r.number_in("seconds", 0.0, 1e12),
    }
    if set(r.data) != set(LINE_FIELDS):
        raise r.fail(f"must hold exactly the fields {', '.join(LINE_FIELDS)}")
    return line
