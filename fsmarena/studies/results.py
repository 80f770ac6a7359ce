"""The results of one study run, as data: what the pipeline produces, the store keeps and every
report, table and figure reads.

:class:`StudyResults` holds the study as defined, the scale and master seed, one
:class:`~fsmarena.studies.runner.StudyData` per part (the study itself, or one per value of its
``sweep``), each with every replicate's record and every stage's result, and how the run was made:
the exact command, its wall-clock time and, for a published run, its manifest (versions, CPU time,
dates).  It is built by :func:`fsmarena.studies.pipeline.run_pipeline` after a run, by
:func:`fsmarena.studies.pipeline.read_run` from a finished study folder and by
:func:`fsmarena.studies.store.load_store` from ``published/<study>/``.
"""

from __future__ import annotations

import csv
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from fsmarena.errors import FsmarenaError
from fsmarena.extras import install_hint
from fsmarena.fileio import read_text
from fsmarena.studies.protocol import Study
from fsmarena.studies.report import write_report
from fsmarena.studies.runner import StudyData


@dataclass
class StudyResults:
    """One run of a study (module docstring)."""

    study: Study
    scale: str
    seed: int
    parts: dict[int | None, StudyData]
    command: str = ""
    wall_seconds: float | None = None
    #: a published run's manifest (:mod:`fsmarena.studies.store`); None: a run of this installation
    manifest: dict[str, Any] | None = None
    #: the run's folder (its parts' folders are in or at it: :meth:`Study.part_folder`); reports go there
    out: Path | None = None
    #: the budget, in games, every family of these parts was configured for (the scale's largest
    #: ``levels``); None for a scale without levels
    level: int | None = None
    #: the same study run at each smaller budget level of the scale, every family configured for
    #: it (only the stages that compare families: :mod:`fsmarena.studies.pipeline`)
    levels: dict[int, "StudyResults"] = field(default_factory=dict)
    _cache: tuple[dict[str, Any], dict[str, list[dict[str, Any]]]] | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.study.name

    @property
    def only(self) -> StudyData:
        """The data of a study without a sweep (its one part)."""
        if None not in self.parts:
            per = self.study.sweep[0] if self.study.sweep else "value"
            raise FsmarenaError(f"study '{self.name}' has one part per {per}: choose one of its parts")
        return self.parts[None]

    @property
    def fingerprint(self) -> str:
        """The parts' protocol fingerprints, joined by commas."""
        return ",".join(data.plan.fingerprint for data in self.parts.values())

    def part_name(self, part: int | None) -> str:
        """How keys name a part: "" for the one part, else ``<value><initial>`` (``2p``)."""
        return "" if part is None or self.study.sweep is None else f"{part}{self.study.sweep[0][0]}"

    @property
    def settings(self) -> dict[str, dict[str, Any]]:
        """Every competitor's resolved settings, by competitor (``<competitor>.<part>`` in a sweep)."""
        found = {}
        for part, data in self.parts.items():
            suffix = f".{self.part_name(part)}" if part is not None else ""
            found.update({f"{name}{suffix}": s for name, s in data.settings.items()})
        return found

    def moved(self, out: Path) -> "StudyResults":
        """The same results with every part's output folder under ``out`` (a report written
        elsewhere, e.g. a scratch folder when publishing)."""
        parts = {part: replace(data, out=self.study.part_folder(out, part)) for part, data in self.parts.items()}
        levels = {level: run.moved(self.study.level_folder(out, level)) for level, run in self.levels.items()}
        return replace(self, parts=parts, out=out, levels=levels, _cache=None)

    def at_every_level(self) -> dict[int | None, "StudyResults"]:
        """This run and the run at each smaller budget level, by level, ascending (the key None:
        a scale without levels, this run only)."""
        return {**dict(sorted(self.levels.items())), self.level: self}

    # ---- what the report writes, for a user at a Python prompt ----------------------------

    def summary(self) -> str:
        """What ``fsmarena study`` prints after a run (each family's headline result), without
        the report's path."""
        return "\n".join(line for line in self._written()[0]["lines"] if not line.startswith("report: "))

    def tables(self) -> dict[str, list[dict[str, Any]]]:
        """Every table of the report (``tables/*.csv``), by name (``2-players/panel_summary`` for a
        part's own table in a sweep), as rows with numbers as numbers; the report is written in a
        scratch folder, so nothing is written beside the results."""
        return self._written()[1]

    def to_pandas(self) -> dict[str, Any]:
        """Every table as a tidy :class:`pandas.DataFrame` (the ``[pandas]`` extra)."""
        try:
            import pandas  # optional dependency: only this method needs it
        except ImportError:
            raise FsmarenaError(f"to_pandas needs pandas: {install_hint('pandas')}") from None
        return {name: pandas.DataFrame(rows) for name, rows in self.tables().items()}

    def _written(self) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
        """The report's summary and tables, written once into a scratch folder and kept."""
        if self._cache is None:
            with tempfile.TemporaryDirectory(prefix="fsmarena-results-") as scratch:
                summary = write_report(self.moved(Path(scratch)), figures=False)
                tables = {
                    path.relative_to(scratch).with_suffix("").as_posix().replace("tables/", ""): _read_rows(path)
                    for path in sorted(Path(scratch).rglob("tables/*.csv"))
                }
            self._cache = (summary, tables)
        return self._cache


def _read_rows(path: Path) -> list[dict[str, Any]]:
    """A CSV table's rows, with numbers, booleans and empty cells read back as such."""
    return [{k: _value(v) for k, v in row.items()} for row in csv.DictReader(read_text(path, "table").splitlines())]


def _value(text: str) -> Any:
    if text == "":
        return None
    if text in ("True", "False"):
        return text == "True"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
