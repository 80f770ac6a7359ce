"""From a finished run to tables and figures: the statistics written as CSV, the plots drawn.

Everything here is a pure function of the result files (no randomness, no timing in the
result tables), so an interrupted-then-resumed study produces byte-identical CSVs.  Compute
times go to ``tables/timing.csv`` only.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from fsmarena.csvfile import csv_text
from fsmarena.figures.curves import learning_curves
from fsmarena.figures.heatmap import net_score_heatmap
from fsmarena.figures.machine_graph import MAX_DRAWN_STATES, machine_caption, minimal_for_drawing, write_machine
from fsmarena.figures.outcomes import outcome_boxes, outcome_ecdfs
from fsmarena.figures.policy_map import policy_maps
from fsmarena.figures.style import Drawn
from fsmarena.fileio import write_text
from fsmarena.games.players import TablePolicy
from fsmarena.games.stats import wilson_interval
from fsmarena.stats import comparisons as st
from fsmarena.studies.runner import StudyData, champion_label

MACHINE_KINDS = ("bda", "table-fsm")
#: a policy map draws one cell per tabular state: beyond this many it is unreadable and takes
#: minutes and gigabytes to draw (measured: over 5 minutes and 3 GB for 16,254 states), so it is left out
MAX_POLICY_MAP_STATES = 5_000


@dataclass
class Analysis:
    """Every table of a study (lists of CSV rows) and every figure written (stem -> paths)."""

    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    figures: dict[str, list[Path]] = field(default_factory=dict)
    best: dict[str, int] = field(default_factory=dict)  # competitor -> replicate of its best champion
    labels: dict[str, str] = field(default_factory=dict)  # competitor -> display label


def analyse(data: StudyData, figures: bool = True) -> Analysis:
    """Compute and write every table (``tables/*.csv``) and, optionally, every figure::

    per replicate: panel rows (with Wilson intervals), curve points, seeds, timing
    per panel opponent: each family's mean with its interval, the pairwise tests
    with a cross-play: family and champion rows, pairings, the league over other families
    Holm over every declared test at once
    """
    plan = data.plan
    result = Analysis(labels={c.name: c.label for c in plan.competitors})
    panel_rows = _replicate_tables(data, result)
    _panel_tables(data, result, panel_rows)
    if data.crossplay is not None:
        _crossplay_tables(data, result)
    st.holm_over_family(result.tables["panel_tests"], result.tables.get("crossplay_league_tests", []))
    for name, rows in result.tables.items():
        write_text(data.out / "tables" / f"{name}.csv", to_csv(rows))
    result.best = _best_champions(data, panel_rows)
    if figures:
        draw_figures(data, result)
    return result


def _replicate_tables(data: StudyData, result: Analysis) -> list[dict[str, Any]]:
    """One row per replicate and panel opponent, curve point, seed and timing; returns the panel rows."""
    label = result.labels
    panel_rows: list[dict[str, Any]] = []
    curve_rows: list[dict[str, Any]] = []
    seed_rows: list[dict[str, Any]] = []
    timing_rows: list[dict[str, Any]] = []
    for name in label:
        for rec in data.family(name):
            who = champion_label(name, rec.replicate)
            panel_rows += [_panel_row(who, label[name], name, rec.replicate, o, c) for o, c in rec.panel.items()]
            curve_rows += [
                {"competitor": name, "method": label[name], "replicate": rec.replicate, "games": g, "win_rate": w}
                for g, w in zip(rec.curve_games, rec.curve_win)
            ]
            seed_rows.append(
                {"competitor": name, "replicate": rec.replicate, "train_seed": rec.seed, "games_consumed": rec.games}
            )
            timing_rows.append(
                {
                    "competitor": name,
                    "replicate": rec.replicate,
                    "train_seconds": rec.train_seconds,
                    "panel_seconds": rec.panel_seconds,
                    "cpu_seconds": rec.cpu_seconds,
                }
            )
    result.tables.update(panel=panel_rows, curves=curve_rows, seeds=seed_rows, timing=timing_rows)
    return panel_rows


def _panel_row(who: str, method: str, name: str, replicate: int, opponent: str, counts: dict) -> dict[str, Any]:
    """One champion against one panel opponent: its counts, win rate with Wilson's interval, scores."""
    g = counts["games"]
    low, high = wilson_interval(counts["wins"], int(g))
    return {
        "champion": who,
        "method": method,
        "competitor": name,
        "replicate": replicate,
        "opponent": opponent,
        **{k: counts[k] for k in ("games", "wins", "draws", "losses")},
        "win_rate": counts["wins"] / g,
        "ci_low": low,
        "ci_high": high,
        "score": counts["score"] / g,
        "opp_score": counts["opp_score"] / g,
    }


def _panel_tables(data: StudyData, result: Analysis, panel_rows: list[dict[str, Any]]) -> None:
    """Per panel opponent, each family's mean with its interval and the pairwise tests."""
    study, label, seed = data.plan.study, result.labels, data.plan.seed
    questions = declared_questions(study, label)
    summary, tests = [], []
    for opponent in study.panel:
        groups: dict[str, list[float]] = {
            label[n]: [float(r["win_rate"]) for r in panel_rows if r["competitor"] == n and r["opponent"] == opponent]
            for n in label
        }
        summary += st.summarize(groups, opponent, seed=seed)
        tests += st.pairwise(groups, opponent, questions, seed)
    result.tables.update(panel_summary=summary, panel_tests=tests)


def _crossplay_tables(data: StudyData, result: Analysis) -> None:
    """The cross-play's family, champion and pairing rows and the league over the other families."""
    cp, plan, label = data.crossplay, data.plan, result.labels
    assert cp is not None
    seed = plan.seed
    family_rows, champion_rows = labelled_crossplay_tables(data)
    for row in champion_rows:
        row["method"] = label[row["family"]]
    pair_rows = [
        {
            "champion_a": cp.labels[i],
            "champion_b": cp.labels[j],
            "games": int(g),
            "wins_a": int(w),
            "draws": int(d),
            "losses_a": int(l),
        }
        for (i, j), g, w, d, l in zip(cp.pairs, cp.games, cp.wins, cp.draws, cp.losses)
    ]
    league, league_rows = _league_over_other_families(cp, champion_rows, label)
    questions = declared_questions(plan.study, label)
    result.tables.update(
        crossplay_family=family_rows,
        crossplay_champions=champion_rows,
        crossplay_pairs=pair_rows,
        crossplay_league=league_rows,
        crossplay_league_summary=st.summarize(league, "other families", seed=seed),
        crossplay_league_tests=st.pairwise(league, "other families", questions, seed),
    )


def labelled_crossplay_tables(data: StudyData) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The cross-play's family and champion rows (:func:`fsmarena.stats.comparisons.crossplay_tables`,
    builtins as fixed players), each family row naming its families by label (``method``,
    ``opponent_method``)."""
    cp, plan = data.crossplay, data.plan
    assert cp is not None
    label = {c.name: c.label for c in plan.competitors}
    family_rows, champion_rows = st.crossplay_tables(cp, list(label), plan.seed, plan.fixed)
    for row in family_rows:
        row["method"], row["opponent_method"] = label[row["family"]], label[row["opponent_family"]]
    return family_rows, champion_rows


def _league_over_other_families(
    cp: Any, champion_rows: list[dict[str, Any]], label: dict[str, str]
) -> tuple[dict[str, list[float]], list[dict[str, Any]]]:
    """Each champion against the pooled champions of all *other* families: a league score."""
    league: dict[str, list[float]] = {label[n]: [] for n in label}
    league_rows = []
    for c, who in enumerate(cp.labels):
        mine = [r for r in champion_rows if r["champion"] == who and r["opponent_family"] != cp.families[c]]
        games = sum(r["games"] for r in mine)
        if games:
            wins = sum(r["wins"] for r in mine)
            losses = sum(r["losses"] for r in mine)
            league[label[cp.families[c]]].append(wins / games)
            league_rows.append(
                {
                    "champion": who,
                    "method": label[cp.families[c]],
                    "games": games,
                    "wins": wins,
                    "draws": games - wins - losses,
                    "losses": losses,
                    "win_rate": wins / games,
                }
            )
    return league, league_rows


def declared_questions(study: Any, label: dict[str, str]) -> list[tuple[str, str]] | None:
    """The study's declared questions as pairs of display labels; None when it declares none
    (then every pair is tested, :func:`fsmarena.stats.comparisons.comparisons`)."""
    if not study.questions:
        return None
    return [(label[a], label[b]) for a, b in study.questions]


def _best_champions(data: StudyData, panel_rows: list[dict]) -> dict[str, int]:
    """Per competitor, the replicate with the highest win rate against the curve opponent
    (the thesis's selection criterion); ties go to the lowest replicate."""
    opponent = data.plan.study.curve_opponent
    best = {}
    for c in data.plan.competitors:
        rows = [r for r in panel_rows if r["competitor"] == c.name and r["opponent"] == opponent]
        if rows:
            top = max(rows, key=lambda r: (r["win_rate"], -r["replicate"]))
            best[c.name] = top["replicate"]
    return best


def draw_figures(data: StudyData, result: Analysis) -> None:
    """Every figure of the report, in ``figures/`` (PNG and PDF)."""

    plan, folder = data.plan, data.out / "figures"
    study = plan.study
    label = result.labels
    names = [c.name for c in plan.competitors]
    # every family, those without curves too (they are skipped but keep their place): a family's
    # colour is its place in the study's order, in this figure as in every other
    curves = {label[n]: [(r.curve_games, r.curve_win) for r in data.family(n)] for n in names}
    result.figures["learning_curves"] = learning_curves(
        curves, folder / "learning_curves", opponent=study.curve_opponent
    )

    panel_figure(result, names, study.panel, folder)
    crossplay_figures(result, names, folder)
    reliability_figure(result, names, study.curve_opponent, folder)

    tables = {
        label[n]: [r.player.table[0] for r in data.family(n)]  # type: ignore[attr-defined]
        for n in names
        if all(isinstance(r.player, TablePolicy) for r in data.family(n))
    }
    if tables and data.game.n_states <= MAX_POLICY_MAP_STATES:
        game = data.game
        result.figures["policy_map"] = policy_maps(
            tables, [game.state_label(s) for s in range(game.n_states)], game.action_names, folder / "policy_map"
        )

    result.figures.update(best_machine_figures(data, result, folder))


def panel_figure(result: Analysis, names: Sequence[str], panel: Sequence[str], folder: Path) -> None:
    """Box plots of every replicate's win rate against each builtin of the panel."""

    label = result.labels
    panels = {
        opp: {
            label[n]: [r["win_rate"] for r in result.tables["panel"] if r["competitor"] == n and r["opponent"] == opp]
            for n in names
        }
        for opp in panel
    }
    result.figures["panel_outcomes"] = outcome_boxes(panels, folder / "panel_outcomes", xlabel="win rate (%)")


def reliability_groups(result: Analysis, names: Sequence[str], opponent: str) -> dict[str, dict[str, list[float]]]:
    """The replicate outcomes the reliability figure and table show: against ``opponent`` (the
    curve opponent) and, with a cross-play, in the league; measure -> method -> values."""
    label = result.labels
    groups = {
        f"vs {opponent}": {
            label[n]: [
                r["win_rate"] for r in result.tables["panel"] if r["competitor"] == n and r["opponent"] == opponent
            ]
            for n in names
        }
    }
    if "crossplay_league" in result.tables:
        groups["league"] = {
            label[n]: [r["win_rate"] for r in result.tables["crossplay_league"] if r["method"] == label[n]]
            for n in names
        }
    return {k: v for k, v in groups.items() if any(v.values())}


def reliability_figure(result: Analysis, names: Sequence[str], opponent: str, folder: Path) -> None:
    """The empirical distribution of every family's replicate outcomes (how reliable one run is)."""

    groups = reliability_groups(result, names, opponent)
    if groups:
        result.figures["reliability"] = outcome_ecdfs(groups, folder / "reliability")


def crossplay_figures(result: Analysis, names: Sequence[str], folder: Path) -> None:
    """The family heat map (net score, wins minus losses per game, with its champion-level
    intervals) and the spread of champions' win rates, when the study played a cross-play."""

    if "crossplay_family" not in result.tables:
        return
    label = result.labels
    order = [label[n] for n in names]
    rows = [
        {**r, "family": r["method"], "opponent_family": r["opponent_method"]} for r in result.tables["crossplay_family"]
    ]
    net, low, high = (st.matrices(rows, order, key=key)[0] for key in ("net", "net_ci_low", "net_ci_high"))
    champions = [r["champions"] for r in rows]
    result.figures["crossplay_heatmap"] = net_score_heatmap(
        net, order, folder / "crossplay_heatmap", low, high, replicates=champions
    )
    spread = {
        label[b]: {
            label[a]: [
                r["win_rate"]
                for r in result.tables["crossplay_champions"]
                if r["family"] == a and r["opponent_family"] == b
            ]
            for a in names
        }
        for b in names
    }
    result.figures["crossplay_spread"] = outcome_boxes(
        spread, folder / "crossplay_spread", xlabel="champion's win rate (%)"
    )


def best_machine_figures(
    data: StudyData, result: Analysis, folder: Path, players: int | None = None
) -> dict[str, list[Path]]:
    """Draw each family's best automaton (``best_<name>.png``/``.pdf`` in ``folder``, or
    ``best_<name>_<n>p`` when ``players`` gives the table size); returns the figures by key."""
    drawn = {}
    for name, replicate in result.best.items():
        rec = data.records[(name, replicate)]
        if rec.player.kind not in MACHINE_KINDS:
            continue
        suffix, at_table = ("", "") if players is None else (f"_{players}p", f", {players} players")
        paths = draw_machine(
            rec.player,
            data.game,
            folder / f"best_{name}{suffix}",
            title=f"best {result.labels[name]}{at_table} (replicate {replicate})",
        )
        if paths:
            drawn[f"best_{name}"] = paths
    return drawn


def draw_machine(player: Any, game: Any, stem: Path, title: str = "") -> list[Path]:
    """Draw an automaton (PNG and PDF) as the minimal machine that plays like it against the
    game's builtins, weighted by use (:func:`fsmarena.figures.machine_graph.minimal_for_drawing`, ``draw
    --minimise``; states keep the player file's numbers); nothing for a minimal machine above
    the drawings' limit (its player file holds it all)."""
    minimal, inputs, usage, link = minimal_for_drawing(player, game)  # the title's note says it is minimal
    if minimal.n_states > MAX_DRAWN_STATES:
        return []
    paths = Drawn()
    for suffix in (".png", ".pdf"):
        target = stem.with_suffix(suffix)
        graph = write_machine(minimal, game, target, title=title, usage=usage, inputs=inputs, measure=False, link=link)
        paths.append(target)
    paths.caption = machine_caption(graph)
    return paths


# ---- CSV --------------------------------------------------------------------------------------


def _cell(value: Any) -> Any:
    if isinstance(value, (float, np.floating)):
        return "" if not math.isfinite(value) else f"{float(value):.6g}"
    if isinstance(value, np.integer):
        return int(value)
    return value


def to_csv(rows: Sequence[dict[str, Any]]) -> str:
    """Rows as CSV text (columns in first-row order; NaN as an empty cell; 6 significant digits)."""
    if not rows:
        return ""
    return csv_text(list(rows[0]), [{k: _cell(v) for k, v in row.items()} for row in rows])


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))
