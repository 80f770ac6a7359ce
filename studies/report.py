"""The study report: ``DIR/report.md``, written from the tables (never from memory).

Sections: the question; the protocol with every parameter and seed; results against the
builtin panel, learning curves, cross-play (heat map, spread, league); the statistical tests;
the policies and machines; conclusions in plain words, generated from the numbers with
hedged wording (a difference is called one only when its interval excludes zero, or its
Holm-adjusted p-value is below 0.05); compute time; the exact command and package versions.
"""

from __future__ import annotations

import math
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, Sequence

from fsmarena.fileio import write_text
from fsmarena.version import __version__
from games.base import config_to_dict
from studies.analysis import Analysis
from studies.reference_line import reference_section
from studies.runner import StudyData

ALPHA = 0.05
PACKAGES = ("numpy", "scipy", "deap", "matplotlib", "joblib", "networkx")


def pct(x: float, digits: int = 1) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{100 * x:.{digits}f}%"


def pp(x: float) -> str:
    return "–" if not math.isfinite(x) else f"{100 * x:+.1f} pp"


def pval(p: float) -> str:
    if not math.isfinite(p):
        return "–"
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A markdown table (cells already formatted)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def versions(extra: Sequence[str] = ()) -> dict[str, str]:
    """Python, fsmarena and the versions of the packages a result depends on (plus ``extra``)."""
    found = {"python": platform.python_version(), "fsmarena": __version__}
    for name in (*PACKAGES, *extra):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def figure(analysis: Analysis, key: str, caption: str, out: Path) -> str:
    """The Markdown of figure ``key`` of the analysis ("" when it was not drawn)."""
    return image(analysis.figures.get(key, []), out, caption)


def image(paths: Sequence[Path], out: Path, caption: str) -> str:
    """A PNG shown with its caption and a link to its PDF twin (paths relative to ``out``)."""
    if not paths:
        return ""
    png = next((p for p in paths if p.suffix == ".png"), paths[0])
    pdf = next((p for p in paths if p.suffix == ".pdf"), None)
    link = f" ([PDF]({pdf.relative_to(out).as_posix()}))" if pdf else ""
    return f"![{caption}]({png.relative_to(out).as_posix()})\n\n*{caption}*{link}\n"


# ---- sections ---------------------------------------------------------------------------------


def protocol_section(data: StudyData, analysis: Analysis) -> str:
    plan, study = data.plan, data.plan.study
    params = config_to_dict(data.game.config)
    games_used: dict[str, list[int]] = {}
    for row in analysis.tables["seeds"]:
        games_used.setdefault(row["competitor"], []).append(row["games_consumed"])
    rows = []
    for c in plan.competitors:
        settings = ", ".join(f"{k}={v}" for k, v in c.params.items()) or "–"
        used = sorted(games_used.get(c.name, [0]))
        rows.append(
            [f"`{c.name}`", c.label, f"`{c.method}`", settings, ", ".join(c.needs) or "–", f"{used[len(used) // 2]:,}"]
        )
    text = [
        "## Protocol\n",
        f"- **Study** `{study.name}` version {study.version}, scale **{plan.scale.name}**"
        + (f" ({plan.scale.description})" if plan.scale.description else "")
        + f"; protocol fingerprint `{plan.fingerprint}`.",
        f"- **Game** `{study.game}` with parameters: " + ", ".join(f"{k}={v}" for k, v in params.items()) + ".",
        "- **Replicates**: "
        + ", ".join(f"{c.name} {c.replicates}" for c in plan.competitors)
        + " independent replicates.",
        f"- **Master seed** {plan.seed}. Replicate *r* uses `SeedSequence({plan.seed}).spawn(R)[r]`; "
        "each competitor's training and panel evaluation use children of it keyed by a hash of the "
        "competitor's name (the integer training seeds are listed in `tables/seeds.csv`); the cross-play "
        f"uses `SeedSequence({plan.seed}, spawn_key=(2**32,))`. Results do not depend on `--jobs`.",
        f"- **Panel**: every final player plays {plan.scale.panel_games:,} games against each of "
        + ", ".join(f"`{p}`" for p in study.panel)
        + " (seats swapped in half of them).",
        f"- **Learning curves**: win rate against `{study.curve_opponent}` vs simulated games consumed, "
        "as recorded by each method.",
    ]
    if data.crossplay is not None:
        cp = data.crossplay
        text.append(
            f"- **Cross-play**: all {len(cp.labels)} champions (every competitor and replicate) meet every other "
            f"champion: {len(cp.pairs):,} pairings, {int(cp.games.sum()):,} games "
            f"({int(cp.games.min())}–{int(cp.games.max())} per pairing), seats swapped in half. Each family pair's "
            f"games per pairing are chosen so that it pools at least {plan.crossplay_games_needed():,} games: a 95% "
            f"Wilson half-width of at most {100 * plan.scale.crossplay_halfwidth:.1f} percentage points for the "
            "pooled win rate."
        )
    text += [
        "",
        "Competitors (parameters at this scale; games = simulated games consumed per replicate, median):",
        "",
        table(["name", "label", "method", "parameters", "trained against champions of", "games"], rows),
        "",
    ]
    if data.settings:
        text += ["<details><summary>Every setting of every competitor, package defaults included</summary>\n", "```"]
        text += [
            f"{name}: " + ", ".join(f"{k}={v}" for k, v in values.items()) for name, values in data.settings.items()
        ]
        text += ["```\n", "</details>\n"]
    return "\n".join(text)


def panel_section(data: StudyData, analysis: Analysis) -> str:
    study = data.plan.study
    summary = analysis.tables["panel_summary"]
    methods = list(dict.fromkeys(r["method"] for r in summary))
    rows = []
    for m in methods:
        cells = [m]
        for opp in study.panel:
            r = next(x for x in summary if x["method"] == m and x["opponent"] == opp)
            ci = f" [{pct(r['ci_low'])}, {pct(r['ci_high'])}]" if math.isfinite(r["ci_low"]) else ""
            cells.append(f"{pct(r['mean'])}{ci}")
        rows.append(cells)
    text = [
        "## Results\n",
        "### Against the builtin panel\n",
        "Mean win rate of the final players of each method (one per replicate), with the 95% "
        "Student-t interval over replicates (`tables/panel_summary.csv`; per player: `tables/panel.csv`).\n",
        table(["method"] + [f"vs `{o}`" for o in study.panel], rows),
        "",
        figure(
            analysis,
            "panel_outcomes",
            "Replicate outcomes against each builtin: one dot per final "
            "player, boxes at the quartiles, whiskers at the extremes.",
            data.out,
        ),
        "### Learning curves\n",
        figure(
            analysis,
            "learning_curves",
            f"Win rate against {study.curve_opponent} vs simulated games "
            "consumed: median over replicates (line) and inter-quartile band.",
            data.out,
        ),
    ]
    return "\n".join(text)


def crossplay_section(data: StudyData, analysis: Analysis) -> str:
    if "crossplay_family" not in analysis.tables:
        return ""
    rows_in = analysis.tables["crossplay_family"]
    methods = list(dict.fromkeys(r["method"] for r in rows_in))
    rows = []
    for m in methods:
        cells = [m]
        for o in methods:
            r = next((x for x in rows_in if x["method"] == m and x["opponent_method"] == o), None)
            cells.append("–" if r is None else f"{pct(r['win_rate'])} ±{100 * (r['ci_high'] - r['ci_low']) / 2:.1f}")
        rows.append(cells)
    spread_rows = [
        [
            r["method"],
            r["opponent_method"],
            f"{r['games']:,}",
            pct(r["win_rate"]),
            pct(r["loss_rate"]),
            f"{pp(r['net'])} [{pp(r['net_ci_low'])}, {pp(r['net_ci_high'])}]",
            f"{pct(r['champion_median'])} ({pct(r['champion_q1'])}–{pct(r['champion_q3'])})",
            f"{pct(r['champion_min'])}–{pct(r['champion_max'])}",
        ]
        for r in rows_in
        if methods.index(r["method"]) < methods.index(r["opponent_method"])
    ]
    league = analysis.tables["crossplay_league_summary"]
    league_rows = [
        [
            r["method"],
            r["replicates"],
            f"{pct(r['mean'])} [{pct(r['ci_low'])}, {pct(r['ci_high'])}]",
            f"{pct(r['median'])} ({pct(r['q1'])}–{pct(r['q3'])})",
        ]
        for r in league
    ]
    text = [
        "### Cross-play\n",
        "Win rate of the row family's champions against the column family's, pooled over every pairing of "
        "their replicates, ± the 95% Wilson half-width (`tables/crossplay_family.csv`). On the diagonal, "
        "a family's champions against each other (each game counted once). Draws make a row's and a "
        "column's rates sum to less than 100%.\n",
        table(["row \\ column"] + methods, rows),
        "",
        figure(
            analysis,
            "crossplay_heatmap",
            "Cross-play: row family's pooled win rate against the column family (%), with the 95% half-width.",
            data.out,
        ),
        "Head-to-head records with the net advantage (wins − losses per game, 95% interval over games) and "
        "the spread over the row family's champions (each champion's win rate against the whole column "
        "family: median, inter-quartile range, range); each pair once, the other direction is in the CSV:\n",
        table(
            ["row", "column", "games", "win", "loss", "net advantage", "champions: median (IQR)", "champions: range"],
            spread_rows,
        ),
        "",
        figure(
            analysis,
            "crossplay_spread",
            "Spread over replicates: each dot is one champion's win rate "
            "against all champions of the family named in the panel title.",
            data.out,
        ),
        "**League**: each champion's win rate against the champions of all *other* families "
        "(`tables/crossplay_league.csv`); mean with 95% t-interval over replicates, median and IQR.\n",
        table(["method", "champions", "mean [95% CI]", "median (IQR)"], league_rows),
        "",
    ]
    return "\n".join(text)


def tests_section(analysis: Analysis) -> str:
    def block(rows: list[dict]) -> str:
        return table(
            ["A", "B", "median A", "median B", "U", "p", "p (Holm)", "A₁₂", "r (rank-biserial)", "effect"],
            [
                [
                    r["method_a"],
                    r["method_b"],
                    pct(r["median_a"]),
                    pct(r["median_b"]),
                    "–" if not math.isfinite(r["u"]) else f"{r['u']:.1f}",
                    pval(r["p"]),
                    pval(r["p_holm"]),
                    f"{r['a12']:.3f}",
                    f"{r['rank_biserial']:+.3f}",
                    r["effect"],
                ]
                for r in rows
            ],
        )

    text = [
        "### Statistical tests\n",
        "Two-sided Mann–Whitney U tests on the replicate outcomes of every pair of methods; effect size "
        "Vargha–Delaney A₁₂ = P(A > B) + ½P(A = B) (0.5: no difference; |A₁₂ − 0.5| ≥ 0.06, 0.14, 0.21: "
        "small, medium, large) and rank-biserial r = 2A₁₂ − 1; p-values Holm-corrected within each "
        "opponent's family of comparisons (`tables/panel_tests.csv`, `tables/crossplay_league_tests.csv`).\n",
    ]
    by_opponent: dict[str, list[dict]] = {}
    for row in analysis.tables["panel_tests"]:
        by_opponent.setdefault(row["opponent"], []).append(row)
    for opponent, rows in by_opponent.items():
        text += [
            f"<details><summary>Win rate against <code>{opponent}</code></summary>\n",
            block(rows),
            "\n</details>\n",
        ]
    if "crossplay_league_tests" in analysis.tables:
        text += [
            "<details><summary>Cross-play league (win rate against the other families)</summary>\n",
            block(analysis.tables["crossplay_league_tests"]),
            "\n</details>\n",
        ]
    return "\n".join(text)


def machines_section(data: StudyData, analysis: Analysis, heading: str = "### Policies and machines\n") -> str:
    """The policy map (when the study has tabular families), each family's best automaton, and
    what the machines do (:mod:`studies.machines`: effective sizes, fingerprints)."""
    text = [
        figure(
            analysis,
            "policy_map",
            "Tabular policies over the game's states: the action most "
            "replicates chose (colour) and the share that chose it (text).",
            data.out,
        )
    ]
    for name, replicate in analysis.best.items():
        text.append(
            figure(
                analysis,
                f"best_{name}",
                f"Best {analysis.labels[name]} (replicate {replicate}, highest "
                f"win rate against {data.plan.study.curve_opponent}); player file "
                f"`players/{name}/r{replicate:03d}.json`.",
                data.out,
            )
        )
    from studies.machines import machines_summary_section  # (it uses this module's helpers)

    text.append(machines_summary_section(data, analysis))
    text = [t for t in text if t]
    return "\n".join([heading, *text]) if text else ""


def conclusions(data: StudyData, analysis: Analysis) -> str:
    """Plain-words findings, each backed by an interval or a corrected test."""
    study = data.plan.study
    lines = ["## Conclusions\n"]
    opponent = study.curve_opponent if study.curve_opponent in study.panel else study.panel[0]
    summary = [r for r in analysis.tables["panel_summary"] if r["opponent"] == opponent]
    ranked = sorted(summary, key=lambda r: -r["mean"])
    if ranked:
        top = ranked[0]
        lines.append(
            f"- **Against `{opponent}`**, the highest mean win rate is {top['method']}'s "
            f"({pct(top['mean'])}, 95% CI {pct(top['ci_low'])}–{pct(top['ci_high'])}), "
            f"the lowest {ranked[-1]['method']}'s ({pct(ranked[-1]['mean'])})."
        )
        tests = [
            r
            for r in analysis.tables["panel_tests"]
            if r["opponent"] == opponent and top["method"] in (r["method_a"], r["method_b"])
        ]
        better, tied = [], []
        for r in tests:
            other = r["method_b"] if r["method_a"] == top["method"] else r["method_a"]
            a12 = r["a12"] if r["method_a"] == top["method"] else 1 - r["a12"]
            if math.isfinite(r["p_holm"]) and r["p_holm"] < ALPHA:
                better.append(f"{other} (A₁₂ = {a12:.2f}, {r['effect']}, Holm p = {pval(r['p_holm'])})")
            else:
                tied.append(f"{other} (Holm p = {pval(r['p_holm'])})")
        if better:
            lines.append("  Its replicates do significantly better than those of " + "; ".join(better) + ".")
        if tied:
            lines.append(
                "  The data do not separate it from "
                + "; ".join(tied)
                + ": no significant difference at this number of replicates, which is not evidence "
                "that they are equal."
            )
    if "crossplay_family" in analysis.tables:
        rows = analysis.tables["crossplay_family"]
        methods = list(dict.fromkeys(r["method"] for r in rows))
        lines.append(
            "- **Cross-play** (pooled head-to-head records; a family is *ahead* of another when the 95% "
            "interval of its net advantage, wins − losses per game, excludes zero; *k/n champions ahead*: "
            "how many of its champions won more games than they lost against that family):"
        )
        for a in methods:
            ahead, level = [], []
            for b in methods:
                pair = next((x for x in rows if x["method"] == a and x["opponent_method"] == b), None)
                if pair is None or a == b:
                    continue
                if pair["net_ci_low"] > 0:
                    ahead.append(f"{b} ({pp(pair['net'])}; {_champion_consistency(analysis, a, b)})")
                elif pair["net_ci_high"] >= 0:
                    level.append(
                        f"{b} ({pp(pair['net'])}, interval {pp(pair['net_ci_low'])} to {pp(pair['net_ci_high'])})"
                    )
            text = f"  - {a} is ahead of " + ("; ".join(ahead) if ahead else "no other family")
            if level:
                text += "; no detectable difference with " + "; ".join(level)
            lines.append(text + ".")
        league = sorted(analysis.tables["crossplay_league_summary"], key=lambda r: -r["mean"])
        if league:
            lines.append(
                f"- **League**: against all other families' champions, {league[0]['method']} has the best "
                f"mean win rate ({pct(league[0]['mean'])}), {league[-1]['method']} the worst "
                f"({pct(league[-1]['mean'])}); see the league tests for which gaps are significant."
            )
        lines.append(
            "- The cross-play intervals are over games *between these particular champions*; how much "
            "a method's champions vary from replicate to replicate is shown by the spread columns, the "
            "spread figure and the league tests, which treat replicates as the independent units."
        )
    budget: dict[str, list[int]] = {}
    for row in analysis.tables["seeds"]:
        budget.setdefault(analysis.labels[row["competitor"]], []).append(row["games_consumed"])
    finals = []
    for method, values in budget.items():
        curve = [r for r in analysis.tables["curves"] if r["method"] == method]
        if curve:
            finals.append(f"{method} {sorted(values)[len(values) // 2]:,}")
    if finals:
        lines.append(
            "- **Cost**: simulated games consumed per replicate (median): "
            + ", ".join(finals)
            + "; the learning curves show the win rate reached along the way."
        )
    return "\n".join(lines) + "\n"


def _champion_consistency(analysis: Analysis, winner: str, loser: str) -> str:
    rows = [
        r
        for r in analysis.tables["crossplay_champions"]
        if r["method"] == winner and analysis.labels[r["opponent_family"]] == loser
    ]
    ahead = sum(1 for r in rows if r["wins"] > r["losses"])
    return f"{ahead}/{len(rows)} champions ahead"


def compute_section(analysis: Analysis, wall_seconds: float | None) -> str:
    per: dict[str, list[tuple[float, float]]] = {}
    for row in analysis.tables["timing"]:
        per.setdefault(analysis.labels[row["competitor"]], []).append(
            (row["train_seconds"] + row["panel_seconds"], row["cpu_seconds"])
        )
    rows = []
    for method, values in per.items():
        wall = sorted(w for w, _ in values)
        cpu = sorted(c for _, c in values)
        rows.append(
            [method, len(values), f"{wall[len(wall) // 2]:.1f}", f"{cpu[len(cpu) // 2]:.1f}", f"{sum(cpu):.0f}"]
        )
    total = sum(c for values in per.values() for _, c in values)
    text = [
        "## Compute\n",
        "Per replicate task (training + panel), each on one core: wall-clock and CPU seconds. CPU "
        "time is what a task costs whatever else the machine runs; both vary from run to run and are kept out "
        "of the result tables (`tables/timing.csv`).\n",
        table(["method", "tasks", "median wall s", "median CPU s", "total CPU s"], rows),
        f"\nTotal CPU time of the replicate tasks: {total / 60:.1f} min (cross-play, statistics and figures not "
        "included).",
    ]
    if wall_seconds is not None:
        text.append(f"Wall-clock time of this invocation: {wall_seconds / 60:.1f} min.")
    return "\n".join(text) + "\n"


def reproduce_section(
    command: str, files: Sequence[str], kept: str = "finished replicates are kept", extra_packages: Sequence[str] = ()
) -> str:
    """The closing "Reproduce" and "Files" sections every study report ends with: the exact
    command, what a re-run keeps, package versions and platform, then one bullet per output file."""
    return "\n".join(
        [
            "## Reproduce\n",
            "```\n" + command + "\n```\n",
            f"Re-running the same command in the same folder resumes an interrupted run ({kept}) and gives the same "
            "results; any `--jobs` or `--dask` cluster gives the same results.\n",
            table(["package", "version"], [[k, val] for k, val in versions(extra_packages).items()]),
            f"\nPlatform: {platform.platform()}, {sys.implementation.name}.\n",
            "## Files\n",
            "".join(f"- {line}\n" for line in files),
        ]
    )


def write_report(data: StudyData, analysis: Analysis, command: str, wall_seconds: float | None = None) -> Path:
    """Write ``DIR/report.md``."""
    study = data.plan.study
    parts = [
        f"# {study.title}\n",
        f"Study `{study.name}` (version {study.version}), scale `{data.plan.scale.name}`, written by fsmarena "
        f"{__version__}.\n",
        "## Question\n",
        study.question.strip() + "\n",
        protocol_section(data, analysis),
        panel_section(data, analysis),
        reference_section(data),
        crossplay_section(data, analysis),
        tests_section(analysis),
        machines_section(data, analysis),
        conclusions(data, analysis),
        compute_section(analysis, wall_seconds),
        reproduce_section(
            command,
            [
                "`study.json`: the protocol (every parameter) and its fingerprint",
                "`tables/*.csv`: every number in this report",
                "`figures/*.png`, `figures/*.pdf`: the figures (PDF is vector)",
                "`players/<competitor>/rNNN.json`: every final player (`fsmarena play` accepts them)",
                "`replicates/<competitor>/rNNN.json`: raw per-replicate results; `raw/crossplay.json`: raw cross-play "
                "counts",
            ],
        ),
    ]
    path = data.out / "report.md"
    write_text(path, "\n".join(p for p in parts if p) + "\n")
    return path
