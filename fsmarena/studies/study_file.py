"""A study file read and validated: from a decoded TOML table to a :class:`~fsmarena.studies.protocol.Study`.

Every field is checked where it is read, and unknown fields are refused (a typo such as
``reports`` would otherwise change the study without a word): competitors (names, labels,
methods, parameters, what each needs), scales (replicates, panel games, cross-play precision,
budgets, budget ``levels``), the panel, the declared questions, the stages, a sweep, and every
scale's plan (no circular needs, every family within the budget tolerance: :func:`fsmarena.studies.budgets.check_budgets`).
Each problem is one clear error naming the file and the field.
"""

from __future__ import annotations

import datetime
import math
import sys
from pathlib import Path
from typing import Any, Mapping

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import read_text
from fsmarena.studies.budgets import REMOVED_FIELD, REMOVED_MESSAGE, check_budgets, read_levels
from fsmarena.studies.protocol import _NAME, MIN_HALFWIDTH, Competitor, Scale, Study
from fsmarena.studies.registry import stages
from fsmarena.text import clean_label, clean_text, clean_title

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


def read_toml(path: Path) -> dict[str, Any]:
    """The decoded TOML of a study definition file (every problem is one clear error)."""
    text = read_text(path, "study file", limits.MAX_TOML_BYTES)  # bounded; regular files only
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FsmarenaError(f"study file {path} is not valid TOML: {exc}") from None
    except RecursionError:
        raise FsmarenaError(f"study file {path} is nested too deeply") from None


#: the fields of a study file, a competitor and a scale (a study with its own driver adds its own)
STUDY_FIELDS = (
    "name version title question game seed panel competitors scales game_params curve_opponent report best_known "
    "questions stages sweep"
).split()
COMPETITOR_FIELDS = ("name", "label", "method", "params", "needs", "tune")
SCALE_FIELDS = (
    "description",
    "replicates",
    "panel_games",
    "crossplay_halfwidth",
    "budgets",
    "levels",
)


def study_from_dict(
    data: Mapping[str, Any],
    source: str = "study",
    extra_fields: tuple[str, ...] = (),
    extra_scale_fields: tuple[str, ...] = (),
) -> Study:
    """Build a :class:`Study` from plain data (a decoded TOML table), validating it.  Unknown
    fields are refused (a typo such as ``reports`` would otherwise change the study without a
    word); a study with its own driver names the fields it reads itself in ``extra_fields`` and
    ``extra_scale_fields``."""
    r = _Reader(data, source)
    r.refuse_unknown((*STUDY_FIELDS, *extra_fields))
    name = r.text("name")
    if not _NAME.match(name):
        raise r.fail(f"study name '{name}' must be lower-case letters, digits, '-' or '_'")
    competitors = _competitors(r)
    scales = {
        sname: _scale(_Reader(item, f"{source}: scale '{sname}'"), sname, item, competitors, extra_scale_fields)
        for sname, item in r.table("scales").items()
    }
    if not scales:
        raise r.fail("a study needs at least one scale")
    panel = tuple(r.text_list("panel", ["random"]))
    if not panel and not r.text("report", ""):  # the generic report ranks families on the panel
        raise r.fail(
            "field 'panel' must name at least one player (only a study with its own report may leave it empty)"
        )
    study = Study(
        name=name,
        version=r.positive("version"),
        title=clean_title(r.text("title", name)),
        question=clean_text(r.text("question", ""), 20_000, keep_lines=True),
        game=r.text("game"),
        seed=r.non_negative("seed"),
        panel=panel,
        competitors=tuple(competitors),
        scales=scales,
        game_params={k: str(v) for k, v in r.table("game_params", {}).items()},
        curve_opponent=r.text("curve_opponent", "random"),
        source=source,
        report=r.text("report", ""),
        best_known=_best_known(r, scales),
        questions=_questions(r, [c.name for c in competitors]),
        stages=tuple(r.text_list("stages", ["crossplay"])),
        sweep=_sweep(r),
        options={k: data[k] for k in extra_fields if k in data},
    )
    tuned = [c.name for c in competitors if c.tune]
    if tuned and "tuning" not in study.stages:
        raise r.fail(f"competitor '{tuned[0]}' declares a search space (tune): list 'tuning' in the study's stages")
    _check_plans(r, study)
    return study


def _competitors(r: _Reader) -> list[Competitor]:
    """The study's competitors: names, labels, methods, parameters and what each needs, checked."""
    competitors = []
    for i, item in enumerate(r.table_list("competitors")):
        c = _Reader(item, f"{r.source}: competitor {i + 1}")
        c.refuse_unknown(COMPETITOR_FIELDS)
        cname = c.text("name")
        if not _NAME.match(cname):
            raise c.fail(f"competitor name '{cname}' must be lower-case letters, digits, '-' or '_'")
        params = dict(c.table("params", {}))
        _check_numbers(params, c.source + ": params")
        label = clean_label(c.text("label", cname))  # it reaches terminals, tables and figures
        needs = tuple(c.text_list("needs", []))
        competitors.append(Competitor(cname, label, c.text("method"), params, needs, tune=_tune(c)))
    names = [c.name for c in competitors]
    if not competitors:
        raise r.fail("a study needs at least one competitor")
    if len(set(names)) != len(names):
        raise r.fail("competitor names must be unique")
    for comp in competitors:
        unknown = set(comp.needs) - set(names)
        if unknown:
            raise r.fail(f"competitor '{comp.name}' needs unknown competitors: {', '.join(sorted(unknown))}")
    return competitors


def _tune(c: "_Reader") -> dict[str, Any]:
    """A competitor's search space (``tune``) as given; the tuning stage checks it
    (:func:`fsmarena.tuning.stage.check`)."""
    tune = dict(c.table("tune", {}))
    _check_numbers(tune, c.source + ": tune")
    return tune


def _scale(
    s: _Reader, sname: str, item: Any, competitors: list[Competitor], extra_scale_fields: tuple[str, ...]
) -> Scale:
    """One scale: replicates, panel games, cross-play precision, budgets and levels, checked."""
    if isinstance(item, Mapping) and REMOVED_FIELD in item:
        raise s.fail(REMOVED_MESSAGE)
    s.refuse_unknown((*SCALE_FIELDS, *extra_scale_fields))
    budgets = s.table("budgets", {})
    _check_numbers(budgets, s.source + ": budgets")
    names = [c.name for c in competitors]
    for key, value in budgets.items():
        if key not in names:
            raise s.fail(f"budgets for unknown competitor '{key}'")
        if not isinstance(value, Mapping):
            raise s.fail(f"budgets.{key} must be a table")
        count = value.get("replicates", 1)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= limits.MAX_COUNT:
            raise s.fail(f"budgets.{key}.replicates must be a whole number from 1 to {limits.MAX_COUNT:,}")
    halfwidth = s.number("crossplay_halfwidth")
    if not MIN_HALFWIDTH <= halfwidth < 0.5:
        raise s.fail(f"crossplay_halfwidth must be from {MIN_HALFWIDTH} (MIN_HALFWIDTH) to below 0.5, got {halfwidth}")
    panel_games = s.positive("panel_games")
    limits.check(panel_games, limits.MAX_GAMES, f"{s.source}: panel_games", "MAX_GAMES")
    return Scale(
        sname,
        s.positive("replicates"),
        panel_games,
        halfwidth,
        {k: dict(v) for k, v in budgets.items()},
        s.text("description", ""),
        options={k: item[k] for k in extra_scale_fields if k in item},
        levels=_levels(s, budgets, competitors),
    )


def _check_plans(r: _Reader, study: Study) -> None:
    """Every scale's plan: no circular needs, no competitor with more replicates than one it
    needs, every family's budget within the tolerance (or the scale's levels)."""
    for scale in study.scales:
        plan = study.plan(scale)
        plan.stages()  # rejects circular needs
        for comp in plan.competitors:
            for need in comp.needs:
                if plan.competitor(need).replicates < comp.replicates:
                    raise r.fail(
                        f"scale '{scale}': competitor '{comp.name}' has more replicates than "
                        f"'{need}', whose champions it needs"
                    )
    try:
        check_budgets(study)  # every family meets one budget per scale, or the scale says otherwise
    except FsmarenaError as exc:
        raise r.fail(str(exc)) from None


def _best_known(r: _Reader, scales: Mapping[str, Scale]) -> dict[str, Any]:
    """The optional ``[best_known]`` table (fsmarena/studies/reference_line.py), checked before anything
    runs: ``opponents``, a non-empty list of player names; ``budgets``, search games per scale
    (each a defined scale, each budget from 1 to MAX_GAMES)."""
    if "best_known" not in r.data:
        return {}
    b = _Reader(r.table("best_known"), f"{r.source}: best_known")
    b.refuse_unknown(("opponents", "budgets"))
    table: dict[str, Any] = {}
    if "opponents" in b.data:
        table["opponents"] = b.text_list("opponents")
        if not table["opponents"]:
            raise b.fail("field 'opponents' must name at least one player")
    budgets = _Reader(b.table("budgets", {}), f"{b.source}: budgets")
    budgets.refuse_unknown(tuple(scales))
    table["budgets"] = {scale: budgets.positive(scale) for scale in budgets.data}
    for scale, games in table["budgets"].items():
        limits.check(games, limits.MAX_GAMES, f"{budgets.source}: {scale}", "MAX_GAMES")
    return table


def _levels(s: "_Reader", budgets: Mapping[str, Any], competitors: list[Competitor]) -> tuple[int, ...]:
    """A scale's ``levels`` (:func:`fsmarena.studies.budgets.read_levels`), errors naming the scale.
    A family evolved on its exact fitness consumes no games, so no level solves its generations:
    its budgets table keeps them."""
    solved = {c.name: c.method for c in competitors if not c.params.get("exact_fitness")}
    try:
        return read_levels(s.data, budgets, solved)
    except FsmarenaError as exc:
        raise s.fail(str(exc)) from None


def _sweep(r: _Reader) -> tuple[str, tuple[int, ...]] | None:
    """The optional ``sweep`` table: one rule parameter and the different whole numbers it is
    run at (``sweep = { players = [2, 3] }``), a parameter the game's own ``game_params`` does
    not set; the game checks each value when the parts' games are made."""
    if "sweep" not in r.data:
        return None
    table = r.table("sweep")
    values = next(iter(table.values()), None) if len(table) == 1 else None
    if (
        not isinstance(values, list)
        or not 1 <= len(values) <= 8
        or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= limits.MAX_COUNT for v in values)
        or len(set(values)) != len(values)
    ):
        raise r.fail(
            "'sweep' must name one rule parameter and 1 to 8 different whole numbers, e.g. { players = [2, 3] }"
        )
    parameter = next(iter(table))
    if not _NAME.match(parameter):
        raise r.fail(f"sweep parameter '{clean_text(parameter, 60)}' must be a parameter name")
    if parameter in r.data.get("game_params", {}):
        raise r.fail(f"give the values of '{parameter}' in 'sweep', not in game_params")
    return parameter, tuple(values)


def _questions(r: _Reader, names: list[str]) -> tuple[tuple[str, str], ...]:
    """The optional ``questions`` list (docs/statistics.md): pairs of two different competitor
    names, each pair at most once, checked before anything runs."""
    value = r.data.get("questions", [])
    if not isinstance(value, list):
        raise r.fail("field 'questions' must be a list of pairs of competitor names")
    pairs: list[tuple[str, str]] = []
    for item in value:
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            raise r.fail('every entry of \'questions\' must be a pair of competitor names, e.g. ["fsm", "bda"]')
        a, b = item
        unknown = [clean_text(x, 60) for x in item if x not in names]
        if unknown:
            raise r.fail(f"questions: unknown competitor '{unknown[0]}' (known: {', '.join(names)})")
        if a == b:
            raise r.fail(f"questions: '{a}' is compared with itself")
        if any({a, b} == set(q) for q in pairs):
            raise r.fail(f"questions: {a} against {b} is asked twice")
        pairs.append((a, b))
    return tuple(pairs)


def _check_numbers(value: Any, source: str) -> None:
    """Every number in method settings within limits: integers (episodes, games, generations)
    at most MAX_COUNT in size, floats finite; and no TOML date or time, which no method
    setting is (a date where a number belongs would otherwise pass wherever no method reads
    it); checked before anything runs."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            _check_numbers(item, f"{source}.{key}")
    elif isinstance(value, list):
        for item in value:
            _check_numbers(item, source)
    elif isinstance(value, (datetime.date, datetime.time)):  # datetime.datetime is a date
        raise FsmarenaError(
            f"{source} is a TOML date or time; method settings are numbers, strings, booleans, lists and tables"
        )
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > limits.MAX_COUNT:
        raise FsmarenaError(f"{source} is {limits.shown(value)}; the limit is {limits.MAX_COUNT:,} (MAX_COUNT)")
    elif isinstance(value, float) and not math.isfinite(value):
        raise FsmarenaError(f"{source} must be a finite number, got {value}")


class _Reader:
    """Typed access to a TOML table with errors naming the file and field."""

    def __init__(self, data: Any, source: str):
        if not isinstance(data, Mapping):
            raise FsmarenaError(f"{source}: expected a table")
        self.data, self.source = data, source

    def fail(self, message: str) -> FsmarenaError:
        return FsmarenaError(f"{self.source}: {message}")

    def refuse_unknown(self, known: tuple[str, ...]) -> None:
        unknown = sorted(set(self.data) - set(known))
        for key in unknown:  # a stage's setting without its stage: say which stage reads it
            owner = next((e.name for e in stages().values() if key in (*e.study_fields, *e.scale_fields)), None)
            if owner is not None:
                raise self.fail(f"field '{key}' is a setting of stage '{owner}': list '{owner}' in the study's stages")
        if unknown:
            shown = ", ".join(f"'{clean_text(k, 60)}'" for k in unknown[:5])
            raise self.fail(f"unknown field {shown} (known: {', '.join(known)})")

    def _get(self, key: str, kinds: tuple[type, ...], what: str, default: Any) -> Any:
        if key not in self.data:
            if default is ...:
                raise self.fail(f"missing field '{key}'")
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, kinds):
            raise self.fail(f"field '{key}' must be {what}")
        return value

    def text(self, key: str, default: Any = ...) -> str:
        return self._get(key, (str,), "a string", default)

    def flag(self, key: str, default: Any = ...) -> bool:
        value = self.data.get(key, default)
        if value is ...:
            raise self.fail(f"missing field '{key}'")
        if not isinstance(value, bool):
            raise self.fail(f"field '{key}' must be true or false")
        return value

    def number(self, key: str, default: Any = ...) -> float:
        value = self._get(key, (int, float), "a number", default)
        if isinstance(value, int) and abs(value) > limits.MAX_COUNT or not math.isfinite(value):
            raise self.fail(f"field '{key}' must be a finite number of at most {limits.MAX_COUNT:,} in size")
        return float(value)

    def positive(self, key: str, default: Any = ...) -> int:
        return self._whole(key, 1, default)

    def non_negative(self, key: str, default: Any = ...) -> int:
        return self._whole(key, 0, default)

    def _whole(self, key: str, low: int, default: Any) -> int:
        value = self._get(key, (int,), "a whole number", default)
        if not low <= value <= limits.MAX_COUNT:
            size = "positive" if low else "zero or more"
            raise self.fail(
                f"field '{key}' must be {size} and at most {limits.MAX_COUNT:,} (MAX_COUNT), got {limits.shown(value)}"
            )
        return value

    def table(self, key: str, default: Any = ...) -> Mapping[str, Any]:
        return self._get(key, (dict,), "a table", default)

    def table_list(self, key: str) -> list:
        return self._get(key, (list,), "an array of tables", ...)

    def text_list(self, key: str, default: Any = ...) -> list[str]:
        value = self._get(key, (list,), "a list of strings", default)
        if not all(isinstance(v, str) for v in value):
            raise self.fail(f"field '{key}' must be a list of strings")
        return list(value)
