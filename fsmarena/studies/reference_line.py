"""The best known table policy as a reference line in a study report.

Why: a study ranks its families against each other; a reader also needs to know how far each
family is from the best policy one can find in the tabular class (as 421's report shows every
family's gap to the exact optimum).  A study opts in with a ``[best_known]`` table::

    [best_known]
    opponents = ["random"]                      # default: the study's curve opponent
    budgets = { test = 20000, paper = 20000000 } # search games per opponent, per scale

For each opponent :func:`fsmarena.rl.policy_search.search_policy` runs once per study folder, starting
from the family champion with the best panel win rate against that opponent when it is a
table policy (so the line is at least as good as any table champion on the common games), and
its result is kept in ``raw/reference.json``; ``fsmarena study --resume`` on a finished study
computes only the missing lines and re-renders the report.  A published run (:mod:`fsmarena.studies.store`)
keeps the :data:`LINE_FIELDS` of its lines (``StudyData.kept``), and the section reads them.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from fsmarena.fileio import read_json, write_json
from fsmarena.games.players import Player, TablePolicy, resolve_player
from fsmarena.rl.policy_search import search_policy
from fsmarena.studies.runner import StudyData

FILE = "raw/reference.json"
#: what the section reads of a line: what a published run keeps (not the searched table)
LINE_FIELDS = (
    "opponent",
    "budget",
    "seed",
    "start",
    "win",
    "win_ci95",
    "confirm_games",
    "games_used",
    "sweeps",
    "seconds",
)


def settings(data: StudyData) -> tuple[list[str], int] | None:
    """The opponents and search budget of this study's scale, or None when it has no line (the
    table was checked when the study was read: :func:`fsmarena.studies.study_file.study_from_dict`)."""
    reference = data.plan.study.best_known
    budgets = reference.get("budgets", {})
    if data.plan.scale.name not in budgets:
        return None
    return list(reference.get("opponents", [data.plan.study.curve_opponent])), budgets[data.plan.scale.name]


def _best_table_start(data: StudyData, opponent: str) -> tuple[np.ndarray | None, str]:
    """The table of the table-policy champion with the best panel win rate against ``opponent``."""
    best: tuple[float, np.ndarray | None, str] = (-1.0, None, "random")
    for record in data.records.values():
        counts = record.panel.get(opponent)
        if counts is None or not isinstance(record.player, TablePolicy) or record.player.n_members != 1:
            continue
        rate = counts["wins"] / counts["games"]
        if rate > best[0]:
            best = (rate, record.player.table[0], f"{record.competitor}/r{record.replicate:03d}")
    return best[1], best[2]


def _search(data: StudyData, opponent: str, budget: int, index: int) -> dict[str, Any]:
    player: Player = resolve_player(opponent, data.game)
    start, origin = _best_table_start(data, opponent)
    seed = int(np.random.SeedSequence([data.plan.seed, 15, index]).generate_state(1)[0])
    began = time.perf_counter()
    result = search_policy(data.game, player, budget, seed, start=start)
    entry = {"opponent": opponent, "budget": budget, "seed": seed, "start": origin}
    entry.update({k: v for k, v in result.summary().items() if k != "trace"})
    entry["seconds"] = round(time.perf_counter() - began, 3)
    entry["actions"] = result.table.tolist()
    return entry


def ensure_lines(data: StudyData) -> list[dict[str, Any]]:
    """The reference line against each opponent, computing and storing only the missing ones
    (as kept, for a published run)."""
    if data.kept is not None:
        return data.kept["reference_lines"]
    chosen = settings(data)
    if chosen is None:
        return []
    opponents, budget = chosen
    path = data.out / FILE
    stored = read_json(path, "reference lines") if path.exists() else {}
    lines = stored.get("lines", {}) if isinstance(stored, dict) else {}
    changed = False
    for index, opponent in enumerate(opponents):
        line = lines.get(opponent)
        if not isinstance(line, dict) or line.get("budget") != budget:
            lines[opponent] = _search(data, opponent, budget, index)
            changed = True
    if changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(path, {"lines": lines})
    return [lines[o] for o in opponents]


def family_rates(data: StudyData, opponent: str) -> list[tuple[str, float, float]]:
    """Each family's mean and best panel win rate against ``opponent``, in plan order."""
    rows = []
    for competitor in data.plan.competitors:
        rates = [
            r.panel[opponent]["wins"] / r.panel[opponent]["games"]
            for r in data.family(competitor.name)
            if opponent in r.panel
        ]
        if rates:
            rows.append((competitor.label, float(np.mean(rates)), float(np.max(rates))))
    return rows


def reference_section(data: StudyData) -> str:
    """Markdown: the best known table policy against each opponent and every family's gap to it."""
    lines = ensure_lines(data)
    if not lines:
        return ""
    parts = [
        "### Best known table policy\n",
        "A direct policy search over the tabular policy class (`fsmarena search`: coordinate ascent on common "
        "random games, started from the best table-policy champion) gives a *best known* line; the gap of a "
        "family is the line minus the family's win rate (mean over replicates, and its best champion).  The line "
        "is a lower bound on the best table policy, not the optimum; a best champion's rate is the largest of "
        "several panel estimates, so it is biased upwards (a negative gap there is noise or a non-table family).\n",
    ]
    for line in lines:
        low, high = line["win_ci95"]
        parts.append(
            f"Against `{line['opponent']}`: **{100 * line['win']:.1f}%** (95% CI {100 * low:.1f} to {100 * high:.1f}, "
            f"{line['confirm_games']:,} fresh games; {line['games_used']:,} search games, {line['sweeps']} sweeps, "
            f"{line['seconds']:.0f} s, started from {line['start']}).\n"
        )
        rows = ["| family | mean win | gap | best champion | gap |", "|---|---:|---:|---:|---:|"]
        for label, mean, best in family_rates(data, line["opponent"]):
            rows.append(
                f"| {label} | {100 * mean:.1f}% | {100 * (line['win'] - mean):+.1f} pp | {100 * best:.1f}% "
                f"| {100 * (line['win'] - best):+.1f} pp |"
            )
        parts.append("\n".join(rows) + "\n")
    return "\n".join(parts)
