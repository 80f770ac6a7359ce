"""The Axelrod-tournament stage: every champion of every family enters Axelrod's own tournament
(``axelrod.Tournament``) with Axelrod's short-run-time strategies and Harper et al.'s evolved
finite-state machines (EvolvedFSM4, 6, 16, 16 Noise 05) measured in the same run, and is ranked by
its mean score per turn (cached in ``<part>/raw/axelrod.json``).

The iterated prisoner's dilemma declares it (its entry's ``study_stages``, :data:`ENTRY`): it
applies to a game that exports its players to Axelrod (the entry's ``exports["axelrod"]``).
Each scale declares ``axelrod_strategies`` (``"all"``, or a list of Axelrod strategy names: a
small field at the test scale) and ``axelrod_repetitions``; the
matches last :data:`TURNS` turns and the tournament's seed is the study's.  Without Axelrod's
library (the ``axelrod`` extra) the stage plays a round robin of the champions against the game's
own builtins (its classics and published machines) on fsmarena's engine instead, and the result
says so (``engine``).

The unit of replication is the champion: a family's score is the mean over its replicates of each
champion's score per turn (its mean over the repetitions), with a Student-t interval over the
replicates (:func:`family_rows`).
"""

from __future__ import annotations

import importlib
import itertools
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, read_json, write_json
from fsmarena.games.arena import play_games
from fsmarena.games.registry import entry, lookup
from fsmarena.stats.comparisons import mean_ci
from fsmarena.studies.protocol import Plan, Study
from fsmarena.studies.registry import Entry
from fsmarena.studies.runner import StudyData, champion_label
from fsmarena.studies.stage import Stage, StageContext

TURNS = 200
#: Harper et al. (2017)'s evolved finite-state machines, as Axelrod's library names the classes
HARPER = ("EvolvedFSM4", "EvolvedFSM6", "EvolvedFSM16", "EvolvedFSM16Noise05")
#: spawn key of the fallback round robin's random stream
TOURNAMENT_KEY = 2**32 + 47
ENGINES = ("axelrod", "fsmarena")


@dataclass
class TournamentResult:
    """Every entrant's name, group (its family's label for a champion, its own name otherwise),
    score per turn per repetition and rank (1 best, by median score); ``engine`` says whose
    tournament it was."""

    engine: str
    names: list[str]
    groups: list[str]
    scores: list[list[float]]
    ranks: list[int]


def applies(data: StudyData) -> bool:
    return "axelrod" in entry(data.game.name).exports


def check(study: Study) -> None:
    """Every scale names its ``axelrod_strategies`` ("all" or names) and a positive whole
    number of ``axelrod_repetitions``."""
    for name, scale in study.scales.items():
        strategies = scale.options.get("axelrod_strategies")
        if strategies != "all" and not (
            isinstance(strategies, list) and strategies and all(isinstance(s, str) for s in strategies)
        ):
            raise FsmarenaError(
                f"{study.source}: scale '{name}' needs 'axelrod_strategies', \"all\" or a list of names"
            )
        repetitions = scale.options.get("axelrod_repetitions")
        if isinstance(repetitions, bool) or not isinstance(repetitions, int) or repetitions < 1:
            raise FsmarenaError(f"{study.source}: scale '{name}' needs a positive whole number 'axelrod_repetitions'")


#: players, their labels and their groups (families' labels), entrant by entrant
Champions = tuple[list[Any], list[str], list[str]]


def _champions(data: StudyData) -> Champions:
    """The champions, their labels and their families' labels, family by family."""
    plan = data.plan
    players = [rec.player for c in plan.competitors for rec in data.family(c.name)]
    labels = [champion_label(c.name, r) for c in plan.competitors for r in range(c.replicates)]
    groups = [c.label for c in plan.competitors for _ in range(c.replicates)]
    return players, labels, groups


def _ranks(scores: list[list[float]]) -> list[int]:
    """1 for the best median score, ties broken by order (as Axelrod ranks)."""
    medians = [float(np.median(s)) for s in scores]
    order = sorted(range(len(scores)), key=lambda i: -medians[i])
    return [order.index(i) + 1 for i in range(len(scores))]


def axelrod_strategies(axl: Any, wanted: Any) -> list[Any]:
    """Axelrod's short-run-time strategies (``"all"``) or those named, one instance each."""
    known = {cls.name: cls for cls in axl.short_run_time_strategies}
    if wanted == "all":
        return [cls() for cls in known.values()]
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise FsmarenaError(f"unknown Axelrod short-run-time strategies: {', '.join(unknown)}")
    return [known[name]() for name in wanted]


def _axelrod_player(axl: Any, description: dict[str, Any], label: str) -> Any:
    """An ``axelrod.FSMPlayer`` from a game's Axelrod export (``format = "axelrod.FSMPlayer"``)."""
    fields = Fields(description, f"the Axelrod export of {label}")
    if fields.get("format", str) != "axelrod.FSMPlayer":
        raise fields.fail("not an axelrod.FSMPlayer description")
    actions = axl.Action
    rows = fields.get("transitions", list)
    transitions = tuple((int(s), actions.from_char(m), int(n), actions.from_char(a)) for s, m, n, a in rows)
    player = axl.FSMPlayer(
        transitions, fields.get("initial_state", int), actions.from_char(fields.get("initial_action", str))
    )
    player.name = label
    return player


def run_axelrod(
    axl: Any, game: Any, champions: Champions, options: Mapping[str, Any], seed: int, jobs: int = 1
) -> TournamentResult:
    """Axelrod's tournament of the champions, Harper et al.'s machines and the chosen strategies."""
    export = lookup(entry(game.name).exports, "axelrod", "export")
    players, labels, groups = champions
    entrants = [_axelrod_player(axl, export(game, p), label) for p, label in zip(players, labels)]
    harper = [getattr(axl, name)() for name in HARPER]
    others = [
        s for s in axelrod_strategies(axl, options["axelrod_strategies"]) if s.name not in {h.name for h in harper}
    ]
    entrants += [*harper, *others]
    names = [*labels, *(str(p.name) for p in harper + others)]
    tournament = axl.Tournament(entrants, turns=TURNS, repetitions=options["axelrod_repetitions"], seed=seed % 2**32)
    results = tournament.play(processes=jobs if jobs > 1 else None, progress_bar=False)
    # each repetition's score per turn from its whole-number total over the opponents (self-play
    # excluded, as in Axelrod's normalised scores): Axelrod's own normalised scores are sums of
    # floats whose order depends on the worker processes, an ulp apart between --jobs 1 and 2
    per_turn = TURNS * max(len(entrants) - 1, 1)
    scores = [[int(total) / per_turn for total in row] for row in results.scores]
    return TournamentResult("axelrod", names, [*groups, *names[len(labels) :]], scores, _ranks(scores))


def run_round_robin(game: Any, champions: Champions, repetitions: int, seed: int) -> TournamentResult:
    """Without Axelrod: every champion and every builtin of the game against every other one,
    ``repetitions`` matches per pair on fsmarena's engine; each repetition's score is the mean
    score per turn over the opponents."""
    players, labels, groups = (list(part) for part in champions)
    builtins = game.builtin_players()
    players += [make() for make in builtins.values()]
    names = [*labels, *builtins]
    groups = [*groups, *builtins]
    totals = np.zeros((len(players), repetitions))
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(TOURNAMENT_KEY,)))
    for i, j in itertools.combinations(range(len(players)), 2):
        outcome = play_games(game, [players[i], players[j]], repetitions, rng)
        totals[i] += outcome.scores[:, 0]
        totals[j] += outcome.scores[:, 1]
    scores = (totals / max(len(players) - 1, 1)).tolist()
    return TournamentResult("fsmarena", names, groups, scores, _ranks(scores))


def family_rows(result: TournamentResult, plan: Plan) -> list[dict[str, Any]]:
    """Per family: the mean over its champions of their score per turn with a 95% Student-t
    interval over the replicates, and its champions' median and best rank; then every other
    entrant's own row (one "replicate")."""
    rows = []
    for group in dict.fromkeys(result.groups):
        members = [i for i, g in enumerate(result.groups) if g == group]
        per_champion = [float(np.mean(result.scores[i])) for i in members]
        mean, low, high = mean_ci(per_champion)
        ranks = [result.ranks[i] for i in members]
        rows.append(
            {
                "group": group,
                "family": group in {c.label for c in plan.competitors},
                "replicates": len(members),
                "score_per_turn": mean,
                "low": low,
                "high": high,
                "median_rank": float(np.median(ranks)),
                "best_rank": min(ranks),
            }
        )
    return sorted(rows, key=lambda row: -row["score_per_turn"])


def _run(ctx: StageContext) -> TournamentResult:
    data = ctx.data
    options = ctx.study.scales[ctx.scale].options
    path = data.out / "raw" / "axelrod.json"
    if path.exists():
        try:
            cached = _read(read_json(path, "Axelrod tournament file"), f"Axelrod tournament file {path}", ctx)
            ctx.log("Axelrod tournament: reusing the finished matches")
            return cached
        except FsmarenaError:
            pass
    try:
        axl = importlib.import_module("axelrod")  # the optional extra, imported only where it is used
    except ModuleNotFoundError:
        ctx.log("Axelrod tournament: axelrod is not installed, a round robin against the game's builtins instead")
        result = run_round_robin(data.game, _champions(data), options["axelrod_repetitions"], data.plan.seed)
    else:
        ctx.log(f"Axelrod tournament: {options['axelrod_repetitions']} repetitions of {TURNS} turns")
        result = run_axelrod(axl, data.game, _champions(data), options, data.plan.seed, ctx.jobs)
    write_json(path, _to_json(result, ctx))
    return result


def _to_json(result: TournamentResult, ctx: StageContext) -> dict[str, Any]:
    return {
        "engine": result.engine,
        "turns": TURNS,
        "names": result.names,
        "groups": result.groups,
        "scores": result.scores,
        "ranks": result.ranks,
    }


def _read(raw: Any, source: str, ctx: StageContext) -> TournamentResult:
    """The stored tournament, checked: a known engine, one group, score row and rank per entrant,
    the part's champions first, ranks a permutation of 1..n."""
    fields = Fields(raw, source)
    engine = fields.get("engine", str)
    if engine not in ENGINES:
        raise fields.fail(f"unknown engine '{engine}'")
    names, groups, ranks = fields.get("names", list), fields.get("groups", list), fields.get("ranks", list)
    scores = fields.get("scores", list)
    n = len(names)
    if not (len(groups) == len(scores) == len(ranks) == n) or sorted(ranks) != list(range(1, n + 1)):
        raise fields.fail("names, groups, scores and ranks must match, the ranks 1 to the number of entrants")
    labels = [champion_label(c.name, r) for c in ctx.data.plan.competitors for r in range(c.replicates)]
    if names[: len(labels)] != labels:
        raise fields.fail("the champions do not match this study's plan")
    try:
        rows = [[float(x) for x in row] for row in scores]
    except (TypeError, ValueError):
        raise fields.fail("scores must be lists of numbers") from None
    if any(not row or not all(np.isfinite(row)) for row in rows):
        raise fields.fail("every entrant needs finite scores")
    return TournamentResult(engine, [str(x) for x in names], [str(x) for x in groups], rows, [int(r) for r in ranks])


STAGE = Stage("axelrod", _run, _to_json, _read, applies, check)
#: the stage as the game's entry declares it (``GameEntry.study_stages``)
ENTRY = Entry(
    "axelrod",
    f"{__name__}:STAGE",
    "every champion ranked in Axelrod's own tournament (the iterated prisoner's dilemma)",
    (),
    ("axelrod_strategies", "axelrod_repetitions"),
)
