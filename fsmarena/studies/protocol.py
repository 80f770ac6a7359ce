"""Studies as data: a named, versioned protocol and the registry of named studies.

A :class:`Study` fixes everything a comparison depends on: the game and its rule parameters,
the competitors (each a training *method* with its parameters), how many independent
replicates each competitor gets, the master seed, the panel of builtin opponents every final
player is measured against, and named *scales* (``test``, ``quick``, ``paper``) that set the
budgets.  :meth:`Study.plan` resolves one scale into a :class:`Plan`, the concrete protocol a
run follows; its :attr:`Plan.fingerprint` (a hash of the whole plan) marks the output folder
and every result file, so results of different plans never mix.

Studies are defined in code or in TOML files (see ``fsmarena/games/dtd/dtd_thesis.toml``, read by
:mod:`fsmarena.studies.study_file`); named studies
are declared by the games' entries (:func:`studies`), their TOML files in the games' folders.  Seeds are derived from the master seed with
``numpy.random.SeedSequence``: replicate ``r`` owns the child sequence with spawn key ``(r,)``
(``SeedSequence(master).spawn(R)[r]``) and each competitor's training and panel evaluation use
children of it keyed by a stable hash of the competitor's name, so adding a competitor or a
replicate never changes the seeds of the others.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.stats import Z95
from fsmarena.studies.budgets import UNIT_PARAMS, solve_units

FORMAT_VERSION = 1
#: spawn key (under the master seed) of the cross-play tournament's random streams
CROSSPLAY_KEY = 2**32
_PURPOSES = {"train": 0, "panel": 1}
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
#: the narrowest cross-play confidence interval a study may ask for (about 960,000 games a pair)
MIN_HALFWIDTH = 0.001


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
    #: a search space of its settings (:mod:`fsmarena.tuning.space`): the study's ``tuning`` stage
    #: chooses them before training (:mod:`fsmarena.tuning.stage`); empty: not tuned
    tune: Mapping[str, Any] = field(default_factory=dict)


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
            competitors.append(Competitor(c.name, c.label, c.method, params, c.needs, replicates, c.tune))
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
                    **({"tune": dict(c.tune)} if c.tune else {}),  # absent when untuned: older plans hash the same
                }
                for c in self.competitors
            ],
        }

    @property
    def fingerprint(self) -> str:
        return _digest(self.to_json())

    def task_fingerprint(self, name: str) -> str:
        """What competitor ``name``'s replicate tasks depend on, and nothing else: the game, the
        seed, the panel and its games, the curve opponent, the competitor's method and
        parameters, and (recursively) those of the competitors it trains against.  A task's
        result carries it, so a study that gains a family (or changes one) keeps every other
        family's finished tasks when it is run again in the same folder."""
        c = self.competitor(name)
        return _digest(
            {
                **{k: v for k, v in self.to_json().items() if k not in ("competitors", "crossplay_halfwidth", "scale")},
                "competitor": {"name": c.name, "method": c.method, "params": dict(c.params)},
                "needs": {need: self.task_fingerprint(need) for need in c.needs},
            }
        )

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


def _digest(data: Any) -> str:
    """A short, stable hash of JSON data (sorted keys)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def seed_int(sequence: np.random.SeedSequence) -> int:
    """A non-negative 63-bit integer seed drawn from a SeedSequence (for APIs taking ints)."""
    return int(sequence.generate_state(1, np.uint64)[0] >> np.uint64(1))
