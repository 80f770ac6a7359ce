"""Helpers shared by the published-store tests (tests/test_publish_*.py): a report's sections,
and damage applied to a stored run's results or manifest."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any, Callable

from fsmarena.studies.kept_measures import measure_kept
from fsmarena.studies.store import MANIFEST, read_results, save_results, write_results


def sections(report: str) -> dict[str, str]:
    """A report's ``##`` sections by heading, blank lines squeezed."""
    found = {}
    for part in re.split(r"^(?=## )", report, flags=re.M)[1:]:
        heading, _, body = part.partition("\n")
        found[heading] = re.sub(r"\n{3,}", "\n\n", body.strip())
    return found


def damage_results(edit: Callable[[dict[str, Any]], Any]) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        results = read_results(folder)
        edit(results)
        write_results(folder, results)

    return damage


def damage_manifest(edit: Callable[[dict[str, Any]], Any]) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        edit(manifest)
        (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")

    return damage


def store_one_part(results: Any, root: Path) -> Path:
    """The store ``fsmarena publish --add`` writes of a one-part run (its measures of the players
    taken first), under ``root``."""
    kept = dataclasses.replace(results.only, kept=measure_kept(results.only))
    return save_results(dataclasses.replace(results, parts={None: kept}), root, {"fsmarena": "test"}, 0.0)
