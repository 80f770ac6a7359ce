"""The named studies and the study files: reading a definition with its stages and report.

A study definition (a TOML file in a game's folder, or given by its path) is read by the generic
reader (:func:`fsmarena.studies.study_file.study_from_dict`) with the fields its stages and its
report layout declare in the registry (:mod:`fsmarena.studies.registry`): a field no part of the
study reads is refused, and each stage checks its own settings here, before anything runs.
Named studies are declared by the games' entries (:func:`studies`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from fsmarena.errors import FsmarenaError
from fsmarena.games.registry import game_studies, resolve
from fsmarena.studies.protocol import Study
from fsmarena.studies.registry import Entry, report_entry, stage_entry
from fsmarena.studies.stage import Stage
from fsmarena.studies.study_file import read_toml, study_from_dict


def studies() -> dict[str, str]:
    """Named studies: name -> the path of a TOML file in its game's folder, or
    "module:function" returning a Study.  Every named study is declared by its game's entry."""
    return game_studies()


def study_names() -> list[str]:
    return sorted(studies())


def get_study(name: str) -> Study:
    """A named study, or a study TOML file given by its path."""
    named = studies()
    if name in named:
        target = named[name]
        if target.endswith(".toml"):
            return load_study_toml(Path(target))
        return resolve(target, f"study '{name}'")()
    if name.endswith(".toml"):
        return load_study_toml(Path(name))
    raise FsmarenaError(f"unknown study '{name}' (known: {', '.join(study_names())}, or a .toml file)")


def load_study_toml(path: Path) -> Study:
    """Read and validate a study definition file (every problem is one clear error)."""
    return study_from_data(read_toml(path), f"study file {path.name}")


def study_from_data(data: Mapping[str, Any], source: str = "study") -> Study:
    """A validated :class:`Study` from a decoded definition: the generic fields, then those of
    its stages and report, each stage's settings checked."""
    parts = _declared(data, source)
    study = study_from_dict(
        data,
        source,
        extra_fields=tuple(dict.fromkeys(f for e in parts for f in e.study_fields)),
        extra_scale_fields=tuple(dict.fromkeys(f for e in parts for f in e.scale_fields)),
    )
    for name in study.stages:
        stage(name).check(study)
    resolve(report_entry(study.report).target, f"report '{study.report}'").check(study)
    return study


def _declared(data: Mapping[str, Any], source: str) -> list[Entry]:
    """The registry entries of the stages and the report a definition names (one clear error
    for an unknown one, before any other field is read)."""
    names = data.get("stages", ["crossplay"])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        raise FsmarenaError(f"{source}: field 'stages' must list different stage names")
    report = data.get("report", "")
    if not isinstance(report, str):
        raise FsmarenaError(f"{source}: field 'report' must be a string")
    try:
        return [*(stage_entry(n) for n in names), report_entry(report)]
    except FsmarenaError as exc:
        raise FsmarenaError(f"{source}: {exc}") from None


def stage(name: str) -> Stage:
    """The stage registered as ``name``."""
    found = resolve(stage_entry(name).target, f"stage '{name}'")
    assert isinstance(found, Stage), f"stage '{name}' is not a Stage"
    return found
