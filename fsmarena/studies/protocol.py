"""Studies as data: a named, versioned protocol and the registry of named studies.

A :class:`Study` fixes everything a comparison depends on: the game and its rule parameters,
the competitors (each a training *method* with its parameters), how many independent
replicates each competitor gets, the master seed, the panel of builtin opponents every final
player is measured against, and named *scales* (``test``, ``quick``, ``paper``) that set the
budgets.  :meth:`Study.plan` resolves one scale into a :class:`Plan`, the concrete protocol a
run follows; its :attr:`Plan.fingerprint` (a hash of the whole plan) marks the output folder
and every result file, so results of different plans never mix.

Studies are defined in code or in TOML files (see ``fsmarena/games/dtd/dtd_thesis.toml``); named studies
are declared by the games' entries (:func:`studies`), their TOML files in the games' folders.  Seeds are derived from the master seed with
``numpy.random.SeedSequence``: replicate ``r`` owns the child sequence with spawn key ``(r,)``
(``SeedSequence(master).spawn(R)[r]``) and each competitor's training and panel evaluation use
children of it keyed by a stable hash of the competitor's name, so adding a competitor or a
replicate never changes the seeds of the others.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import math
import re
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import read_text
from fsmarena.games.registry import game_reports, lookup
from fsmarena.games.stats import Z95
from fsmarena.studies.budgets import (
    REMOVED_FIELD,
    REMOVED_MESSAGE,
    UNIT_PARAMS,
    check_budgets,
    read_levels,
    solve_units,
)
from fsmarena.text import clean_label, clean_text, clean_title

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

FORMAT_VERSION = 1
#: spawn key (under the master seed) of the cross-play tournament's random streams
CROSSPLAY_KEY = 2**32
_PURPOSES = {"train": 0, "panel": 1}
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
#: the narrowest cross-play confidence interval a study may ask for (about 960,000 games a pair)
MIN_HALFWIDTH = 0.001


def reports() -> dict[str, str]:
    """Reports other than the standard one (win rates against a panel, cross-play), named by a
    study's ``report`` field: name -> the "module:function" of the hook a game declares for it,
    giving the report what only that game has as data (``"exact-values"``: a function of the
    game returning a :class:`fsmarena.studies.exact_values.ExactReference`); the studies layer builds
    the report (:mod:`fsmarena.studies.study_reports`)."""
    return game_reports()


@dataclass(frozen=True)
class Competitor:
    """One family of players: a training method and its parameters.

    ``needs`` names competitors whose champion of the *same replicate* this one uses (e.g. RL
    trained against the evolved champions); those run first.  ``replicates`` is set when a
    plan is resolved (the scale's default or the competitor's own ``replicates`` budget).
    """

    name: str
    label: str
    method: str
    params: Mapping[str, Any] = field(default_factory=dict)
    needs: tuple[str, ...] = ()
    replicates: int = 0


#: the method of a competitor that is a fixed player (a builtin strategy): one replicate, never a family
FIXED_METHOD = "builtin"


@dataclass(frozen=True)
class Scale:
    """Budgets of one scale: replicates, panel games, cross-play precision, method budgets.

    ``budgets[competitor]`` overrides the competitor's parameters; its ``replicates`` key, if
    any, gives that competitor its own number of replicates (costly learners may get fewer).
    Every family that consumes games must meet the same budget within 10% (checked at load,
    :mod:`fsmarena.studies.budgets`).  ``levels``: budgets in games, each family configured for
    each (:func:`~fsmarena.studies.budgets.solve_units`).  ``compare_at_smallest_budget``: only
    read from runs stored before levels replaced it (a study file declaring it is refused).
    """

    name: str
    replicates: int
    panel_games: int
    crossplay_halfwidth: float
    budgets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    description: str = ""
    compare_at_smallest_budget: bool = False
    levels: tuple[int, ...] = ()
    #: the scale's fields that its study's stages and report read (``league_games``, ``confirm_games``...),
    #: as given; each stage checks its own (:mod:`fsmarena.studies.stages`)
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Study:
    name: str
    version: int
    title: str
    question: str
    game: str
    seed: int
    panel: tuple[str, ...]
    competitors: tuple[Competitor, ...]
    scales: Mapping[str, Scale]
    game_params: Mapping[str, str] = field(default_factory=dict)
    curve_opponent: str = "random"
    source: str = ""
    #: "" for the standard report, else a name in :func:`reports`
    report: str = ""
    #: the ``[best_known]`` table (best known table policy, fsmarena/studies/reference_line.py); not in
    #: the fingerprint, so adding it to a finished study keeps its results
    best_known: Mapping[str, Any] = field(default_factory=dict)
    #: the family comparisons declared in advance (competitor names; docs/statistics.md): Holm
    #: corrects over these only; empty: none declared, every pair is tested. Not in the
    #: fingerprint (it changes the statistics, not the results)
    questions: tuple[tuple[str, str], ...] = ()
    #: what runs after every replicate is trained, in order (:mod:`fsmarena.studies.stages`): each
    #: stage runs where it applies (cross-play in two-seat games) and keeps its result beside the
    #: replicates'. Not in the fingerprint: a stage's cached counts carry their own key
    stages: tuple[str, ...] = ("crossplay",)
    #: a rule parameter the study is run at several values of, one part each (Stupide Vautour's
    #: ``players = [2, 3]``): ``(parameter, values)``; None: one part, the study itself
    sweep: tuple[str, tuple[int, ...]] | None = None
    #: the study's fields that its stages and report read (``reference``, ``target``...), as given
    options: Mapping[str, Any] = field(default_factory=dict)

    def parts(self) -> dict[int | None, "Study"]:
        """The study of every part: the study itself without a sweep, else one study per value
        of the swept parameter, named ``<name>-<value><initial>`` (``vautour-2p``), titled
        ``<title> (<value> <parameter>)`` and with the parameter added to the game's."""
        if self.sweep is None:
            return {None: self}
        parameter, values = self.sweep
        return {
            value: dataclasses.replace(
                self,
                name=f"{self.name}-{value}{parameter[0]}",
                title=f"{self.title} ({value} {parameter})",
                game_params={**self.game_params, parameter: str(value)},
            )
            for value in values
        }

    def part_folder(self, out: Path, part: int | None) -> Path:
        """Where part ``part`` runs: ``out`` itself, or ``out/<value>-<parameter>`` (``2-players``)."""
        return out if part is None or self.sweep is None else out / f"{part}-{self.sweep[0]}"

    def top_level(self, scale: str) -> int | None:
        """The budget level, in games, a run of ``scale`` is configured for (its largest
        ``levels``); None for a scale without levels."""
        levels = self.scales[scale].levels if scale in self.scales else ()
        return max(levels) if levels else None

    def smaller_levels(self, scale: str) -> tuple[int, ...]:
        """The budget levels of ``scale`` below its top one, ascending: each is run too, every
        family configured for it (:mod:`fsmarena.studies.pipeline`)."""
        levels = self.scales[scale].levels if scale in self.scales else ()
        return tuple(sorted(levels))[:-1]

    def level_folder(self, out: Path, level: int) -> Path:
        """Where the run at a smaller budget ``level`` goes: ``out/levels/<level>-games``."""
        return out / "levels" / f"{level}-games"

    def plan(self, scale: str, seed: int | None = None, level: int | None = None) -> "Plan":
        """The concrete protocol of one scale (``seed`` overrides the master seed) at one of its
        budget ``levels`` (default: the largest), each family's unit of training solved for it."""
        if scale not in self.scales:
            raise FsmarenaError(f"study '{self.name}' has no scale '{scale}' (scales: {', '.join(self.scales)})")
        chosen = self.scales[scale]
        if chosen.levels and level is None:
            level = max(chosen.levels)
        if chosen.levels and level not in chosen.levels:
            raise FsmarenaError(f"scale '{scale}' has no level {level} (levels: {', '.join(map(str, chosen.levels))})")
        competitors = []
        for c in self.competitors:
            params = {**c.params, **chosen.budgets.get(c.name, {})}
            replicates = params.pop("replicates", chosen.replicates)
            if c.method == FIXED_METHOD:  # a fixed player is one player, not a sample of champions
                replicates = 1
            if chosen.levels and level is not None:
                count = solve_units(
                    c.method, params, self.game, self.game_params, level, (self.curve_opponent, c.needs), c.name
                )
                if count is not None:
                    params[UNIT_PARAMS[c.method]] = count
            competitors.append(Competitor(c.name, c.label, c.method, params, c.needs, replicates))
        master = self.seed if seed is None else seed
        if isinstance(master, bool) or not isinstance(master, int) or master < 0:
            raise FsmarenaError(f"a seed must be a non-negative integer, got {master!r}")
        return Plan(self, chosen, master, tuple(competitors))


@dataclass(frozen=True)
class Plan:
    """A study at one scale and seed: everything a run needs, and its fingerprint."""

    study: Study
    scale: Scale
    seed: int
    competitors: tuple[Competitor, ...]

    @property
    def fixed(self) -> frozenset[str]:
        """The competitors that are fixed players (builtin strategies, one replicate each), not
        samples of champions: statistics resample only the families they meet."""
        return frozenset(c.name for c in self.competitors if c.method == FIXED_METHOD)

    @property
    def replicates(self) -> int:
        """The largest number of replicates of any competitor."""
        return max(c.replicates for c in self.competitors)

    def competitor(self, name: str) -> Competitor:
        for c in self.competitors:
            if c.name == name:
                return c
        raise KeyError(name)

    def stages(self) -> list[list[Competitor]]:
        """Competitors in dependency order: stage k only needs competitors of earlier stages."""
        done: set[str] = set()
        left = list(self.competitors)
        stages = []
        while left:
            ready = [c for c in left if set(c.needs) <= done]
            if not ready:  # validated at load time; kept as a guard
                raise FsmarenaError(f"study '{self.study.name}': circular 'needs' among competitors")
            stages.append(ready)
            done.update(c.name for c in ready)
            left = [c for c in left if c.name not in done]
        return stages

    def to_json(self) -> dict[str, Any]:
        """Every parameter of the run (what the fingerprint hashes)."""
        s = self.study
        return {
            "study": s.name,
            "version": s.version,
            "scale": self.scale.name,
            "seed": self.seed,
            "game": s.game,
            "game_params": dict(s.game_params),
            "panel": list(s.panel),
            "curve_opponent": s.curve_opponent,
            "panel_games": self.scale.panel_games,
            "crossplay_halfwidth": self.scale.crossplay_halfwidth,
            "competitors": [
                {
                    "name": c.name,
                    "label": c.label,
                    "method": c.method,
                    "params": dict(c.params),
                    "needs": list(c.needs),
                    "replicates": c.replicates,
                }
                for c in self.competitors
            ],
        }

    @property
    def fingerprint(self) -> str:
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    # ---- seeds -------------------------------------------------------------------------
    def replicate_seed(self, replicate: int) -> np.random.SeedSequence:
        """Replicate ``r``'s sequence: ``SeedSequence(master).spawn(R)[r]``."""
        return np.random.SeedSequence(self.seed, spawn_key=(replicate,))

    def task_seed(self, replicate: int, competitor: str, purpose: str) -> np.random.SeedSequence:
        """The child of replicate ``r``'s sequence for one competitor and purpose."""
        key = (replicate, zlib.crc32(competitor.encode()), _PURPOSES[purpose])
        return np.random.SeedSequence(self.seed, spawn_key=key)

    def crossplay_seed(self) -> np.random.SeedSequence:
        return np.random.SeedSequence(self.seed, spawn_key=(CROSSPLAY_KEY,))

    def crossplay_games_needed(self) -> int:
        """Games a family pair needs so that its pooled win rate's 95% interval has
        half-width at most ``crossplay_halfwidth`` in the worst case (rate 0.5)."""
        h = self.scale.crossplay_halfwidth
        return math.ceil(Z95 * Z95 / (4 * h * h))


def seed_int(sequence: np.random.SeedSequence) -> int:
    """A non-negative 63-bit integer seed drawn from a SeedSequence (for APIs taking ints)."""
    return int(sequence.generate_state(1, np.uint64)[0] >> np.uint64(1))


# ---- loading ---------------------------------------------------------------------------------


def report_hook(name: str):
    """The game's hook registered for report ``name`` (see :func:`reports`)."""
    return lookup(reports(), name, "report")


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
COMPETITOR_FIELDS = ("name", "label", "method", "params", "needs")
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
        competitors.append(Competitor(cname, label, c.text("method"), params, tuple(c.text_list("needs", []))))
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
