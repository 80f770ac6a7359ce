"""Tables, figures and ``DIR/report.md`` of the Stupide Vautour study, from its leagues.

Per player count (``n``), from the league of every champion, every builtin and the field
(:mod:`studies.multiseat`; "A against B" = A against ``n - 1`` copies of B):

* ``tables/league_<n>p.csv``: every ordered pair of groups, pooled over their pairings: win
  rate with its 95% Wilson interval, the advantage (A's sole-win rate minus one B seat's) with
  its 95% interval, and whether A beats B (interval above zero);
* ``tables/champions_<n>p.csv``: the same per champion against every builtin and the field,
  with whether the builtin was one of its training opponents (*seen*);
* ``tables/reference_<n>p.csv``: every family and builtin against the reference
  (bid-the-prize-rank) head to head, and its mean win rate against the other builtins next to
  the reference's own mean against the same opponents (the difference, with a 95% interval,
  is how far above the reference it is);
* ``tables/generalisation_<n>p.csv``: per champion, its mean advantage over the builtins it
  trained against and over those it never met, and whether it beats each;
  ``tables/generalisation_summary_<n>p.csv``: per family, means with 95% t-intervals over
  replicates, and ``tables/generalisation_tests_<n>p.csv``: Mann-Whitney tests between families
  on the unseen advantage (Holm-corrected).

Figures (PNG and PDF): the league heat map, per-champion win rates against each builtin, and
per-champion advantages on seen and unseen builtins.  Every sentence of the conclusions is
computed from these tables; a family "generalises best" only in the sense stated there.

When the game is solvable (two players, a small deck), the exact exploitability:
``tables/exploitability_<n>p.csv`` (every champion, builtin and the equilibrium, with a scatter
against the games each champion's training simulated) and
``tables/exploitability_curve_<n>p.csv`` (per reward, family and learning-curve point, the
median and range over replicates of the snapshots the study runner measured), drawn as one
line per family against the games simulated, log x, one panel per reward.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from fsmarena.fileio import write_text
from fsmarena.version import __version__
from games.base import config_to_dict
from games.stats import Z95
from studies import inference as inf
from studies import statistics as st
from studies.analysis import Analysis, best_machine_figures, declared_questions, to_csv
from studies.multiseat import LeagueResult, advantage_interval, group_rows
from studies.report import declared_statement, estimate, image, merged_phrases, pct, pp, pval, reproduce_section, table
from studies.runner import StudyData
from studies.variants import training_opponents

ALPHA = 0.05


def _rows_by_pair(rows: Sequence[dict]) -> dict[tuple[str, str], dict]:
    return {(r["group"], r["opponent"]): r for r in rows}


def champion_rows(data: StudyData, result: LeagueResult) -> list[dict[str, Any]]:
    """Every champion against every builtin and the field, with the seen flag."""
    plan = data.plan
    label_of = {c.label: c for c in plan.competitors}
    builtins = set(plan.study.panel) | {"field"}
    rows = []
    for k in range(len(result.first)):
        a, b = int(result.first[k]), int(result.other[k])
        family, opponent = result.groups[a], result.groups[b]
        if family not in label_of or opponent not in builtins:
            continue
        c = label_of[family]
        counts = {key: int(getattr(result, key)[k]) for key in ("games", "wins", "draws", "losses", "other_wins")}
        adv, low, high = advantage_interval(counts["wins"], counts["other_wins"], counts["games"], result.seats)
        rows.append(
            {
                "champion": result.labels[a],
                "family": family,
                "competitor": c.name,
                "opponent": opponent,
                "seen": opponent in training_opponents(c.method, dict(c.params)),
                **counts,
                "win_rate": counts["wins"] / counts["games"],
                "advantage": adv,
                "advantage_low": low,
                "advantage_high": high,
                "beats": low > 0,
            }
        )
    return rows


def reference_rows(
    groups: Sequence[str], builtins: Sequence[str], reference: str, pairs: Mapping[tuple[str, str], dict]
) -> list[dict[str, Any]]:
    """Each group against the reference, and its mean win rate against the other builtins
    beside the reference's mean against the same ones (difference with a normal interval)."""
    rows = []
    for g in groups:
        head = pairs.get((g, reference))
        others = [b for b in builtins if b not in (g, reference)]
        mine = [pairs[(g, b)] for b in others]
        theirs = [pairs[(reference, b)] for b in others]
        mean = float(np.mean([r["win_rate"] for r in mine]))
        ref = float(np.mean([r["win_rate"] for r in theirs]))
        var = sum(r["win_rate"] * (1 - r["win_rate"]) / r["games"] for r in mine + theirs) / len(others) ** 2
        half = Z95 * math.sqrt(var)
        field, ref_field = pairs[(g, "field")], pairs[(reference, "field")]
        field_diff = field["win_rate"] - ref_field["win_rate"]
        field_half = Z95 * math.sqrt(sum(r["win_rate"] * (1 - r["win_rate"]) / r["games"] for r in (field, ref_field)))
        rows.append(
            {
                "group": g,
                "vs_reference_games": head["games"] if head else 0,
                "vs_reference_win_rate": head["win_rate"] if head else math.nan,
                "vs_reference_ci_low": head["ci_low"] if head else math.nan,
                "vs_reference_ci_high": head["ci_high"] if head else math.nan,
                "vs_reference_advantage": head["advantage"] if head else math.nan,
                "vs_reference_advantage_low": head["advantage_low"] if head else math.nan,
                "vs_reference_advantage_high": head["advantage_high"] if head else math.nan,
                "field_win_rate": field["win_rate"],
                "field_difference": field_diff,
                "field_difference_low": field_diff - field_half,
                "field_difference_high": field_diff + field_half,
                "opponents": " ".join(others),
                "mean_win_rate": mean,
                "reference_mean_win_rate": ref,
                "difference": mean - ref,
                "difference_low": mean - ref - half,
                "difference_high": mean - ref + half,
            }
        )
    return rows


def generalisation_rows(champions: Sequence[dict]) -> list[dict[str, Any]]:
    """Per champion: mean advantage and win rate over seen and unseen builtins, beats counts."""
    rows = []
    for who in dict.fromkeys(r["champion"] for r in champions):
        mine = [r for r in champions if r["champion"] == who and r["opponent"] != "field"]
        row = {"champion": who, "family": mine[0]["family"], "competitor": mine[0]["competitor"]}
        for part, seen in (("seen", True), ("unseen", False)):
            chosen = [r for r in mine if r["seen"] == seen]
            row[f"{part}_opponents"] = len(chosen)
            row[f"{part}_advantage"] = float(np.mean([r["advantage"] for r in chosen])) if chosen else math.nan
            row[f"{part}_win_rate"] = float(np.mean([r["win_rate"] for r in chosen])) if chosen else math.nan
            row[f"{part}_beaten"] = sum(r["beats"] for r in chosen)
        row["beats_all_seen"] = row["seen_beaten"] == row["seen_opponents"]
        rows.append(row)
    return rows


# ---- the report ---------------------------------------------------------------------------------


def _cell(row: dict | None) -> str:
    if row is None:
        return "–"
    return f"{pct(row['win_rate'])} ±{100 * (row['ci_high'] - row['ci_low']) / 2:.1f}"


class _Part:
    """Everything about one player count: tables, figures and the report section."""

    def __init__(self, study, data: StudyData, analysis: Analysis, result: LeagueResult, out: Path, figures: bool):
        self.study, self.data, self.analysis, self.result, self.out = study, data, analysis, result, out
        plan = data.plan
        self.n = data.game.n_seats
        self.families = [c.label for c in plan.competitors]
        self.builtins = list(plan.study.panel)
        self.reference = study.reference
        self.seen = {c.label: training_opponents(c.method, dict(c.params)) for c in plan.competitors}
        self.league = group_rows(result)
        self.pairs = _rows_by_pair(self.league)
        self.champions = champion_rows(data, result)
        self.refs = reference_rows(self.families + self.builtins, self.builtins, self.reference, self.pairs)
        self.general = generalisation_rows(self.champions)
        self.summary, self.tests = [], []
        for part in ("seen", "unseen"):
            groups = {f: [r[f"{part}_advantage"] for r in self.general if r["family"] == f] for f in self.families}
            groups = {f: v for f, v in groups.items() if v and all(math.isfinite(x) for x in v)}
            self.summary += st.summarize(groups, part, bounds=(-1.0, 1.0), seed=plan.seed)
            if part == "unseen":
                self.tests = st.pairwise(groups, "unseen", declared_questions(plan.study, analysis.labels), plan.seed)
        tag = f"{self.n}p"
        tables = {
            f"league_{tag}": self.league,
            f"champions_{tag}": self.champions,
            f"reference_{tag}": self.refs,
            f"generalisation_{tag}": self.general,
            f"generalisation_summary_{tag}": self.summary,
            f"generalisation_tests_{tag}": self.tests,
        }
        for name, rows in tables.items():
            write_text(out / "tables" / f"{name}.csv", to_csv(rows))
        self.tables = tables
        self.figures: dict[str, list[Path]] = {}
        if figures:
            self.draw()

    # ---- figures ---------------------------------------------------------------------------
    def order(self) -> list[str]:
        return self.families + self.builtins + ["field"]

    def draw(self) -> None:
        from figures.curves import learning_curves
        from figures.heatmap import win_rate_heatmap
        from figures.outcomes import outcome_boxes

        order = self.order()
        size = len(order)
        matrix, low, high = (np.full((size, size), np.nan) for _ in range(3))
        for i, g in enumerate(order):
            for j, h in enumerate(order):
                r = self.pairs.get((g, h))
                if r is not None:
                    matrix[i, j], low[i, j], high[i, j] = r["win_rate"], r["ci_low"], r["ci_high"]
        folder = self.out / "figures"
        self.figures["heatmap"] = win_rate_heatmap(
            matrix,
            order,
            folder / f"league_heatmap_{self.n}p",
            low,
            high,
            title=f"{self.n} players: row against {self.n - 1} {'copy' if self.n == 2 else 'copies'} of column",
            value_label="row's win rate",
            fair_share=1 / self.n,
        )
        panels = {}
        for b in self.builtins:
            panels[f"{b}"] = {
                f: [r["win_rate"] for r in self.champions if r["family"] == f and r["opponent"] == b]
                for f in self.families
            }
        self.figures["outcomes"] = outcome_boxes(
            panels, folder / f"champions_vs_builtins_{self.n}p", xlabel="win rate (%)", reference=1 / self.n
        )
        general = {
            part: {f: [r[f"{part}_advantage"] for r in self.general if r["family"] == f] for f in self.families}
            for part in ("seen", "unseen")
        }
        self.figures["generalisation"] = outcome_boxes(
            general,
            folder / f"generalisation_{self.n}p",
            xlabel="mean advantage (pp)",
            reference=0.0,
            columns=2,
            title_prefix="builtins ",
        )
        from figures.outcomes import outcome_ecdfs

        self.figures["reliability"] = outcome_ecdfs(
            {f"builtins {part}": general[part] for part in ("seen", "unseen")},
            folder / f"reliability_{self.n}p",
            xlabel="mean advantage (pp)",
        )
        plan = self.data.plan
        for kind, opponent in (("train", plan.study.curve_opponent), ("evolve", "random")):
            curves = {
                c.label: [(r.curve_games, r.curve_win) for r in self.data.family(c.name)]
                for c in plan.competitors
                if c.method.startswith(kind)
            }
            if any(len(x) for v in curves.values() for x, _ in v):
                self.figures[f"curves_{kind}"] = learning_curves(
                    curves, folder / f"curves_{kind}_{self.n}p", opponent=opponent
                )
        self.figures.update(best_machine_figures(self.data, self.analysis, folder, players=self.n))

    # ---- text ------------------------------------------------------------------------------
    def section(self) -> str:
        n, ref = self.n, self.reference
        copies = "one copy" if n == 2 else f"{n - 1} copies"
        seen_all = sorted({b for v in self.seen.values() for b in v}, key=self.builtins.index)
        header = (
            ["row \\ column"]
            + [f"`{b}`{' *' if b in seen_all else ''}" for b in self.builtins]
            + self.families
            + ["field"]
        )
        rows = []
        for g in self.families + self.builtins:
            rows.append(
                [f"**{g}**" if g == ref else g]
                + [_cell(self.pairs.get((g, h))) for h in self.builtins + self.families + ["field"]]
            )
        text = [
            f"## {n} players\n",
            "### Everyone against everyone\n",
            f"Win rate of the row (its champions pooled over replicates) against {copies} of the column, ± the "
            f"95% Wilson half-width, at least {min(r['games'] for r in self.league):,} games per cell "
            f"(`tables/league_{n}p.csv`; a fair share is {pct(1 / n)}). Builtins marked * are training opponents "
            "(seen); *field*: each other seat draws one of the seven builtins per game.\n",
            table(header, rows),
            "",
            image(self.figures.get("heatmap", []), self.out, f"{n} players: the league as a heat map."),
            self.reference_section(),
            self.seen_section(),
            self.generalisation_section(),
            image(
                self.figures.get("outcomes", []),
                self.out,
                f"{n} players: each champion's win rate against each builtin (dots: replicates; dotted line: "
                "a fair share).",
            ),
            self.curves_section(),
        ]
        return "\n".join(t for t in text if t)

    def curves_section(self) -> str:
        plan = self.data.plan
        text = [
            image(
                self.figures.get("curves_train", []),
                self.out,
                f"{self.n} players: learners' win rate against `{plan.study.curve_opponent}` (in the training "
                "game) vs training games; median and inter-quartile band over replicates.",
            ),
            image(
                self.figures.get("curves_evolve", []),
                self.out,
                f"{self.n} players: the generation champion's win rate against `random` vs games simulated "
                "by the evolution (evolution measures its curve against random).",
            ),
        ]
        for name, replicate in self.analysis.best.items():
            text.append(
                image(
                    self.figures.get(f"best_{name}", []),
                    self.out,
                    f"{self.n} players: the best {self.analysis.labels[name]} (replicate {replicate}, highest "
                    f"win rate against `{plan.study.curve_opponent}` in the panel games); player file "
                    f"`{self.n}-players/players/{name}/r{replicate:03d}.json`.",
                )
            )
        text = [t for t in text if t]
        return "\n".join(["### Learning curves and the best machines\n"] + text) if text else ""

    def reference_section(self) -> str:
        ref, n = self.reference, self.n
        rows = []
        for r in self.refs:
            head = (
                "–"
                if r["group"] == ref
                else f"{pct(r['vs_reference_win_rate'])} [{pct(r['vs_reference_ci_low'])}, {pct(r['vs_reference_ci_high'])}]"
            )
            low, high = r["vs_reference_advantage_low"], r["vs_reference_advantage_high"]
            adv = (
                "–"
                if r["group"] == ref
                else estimate(
                    r["vs_reference_advantage"], low, high, low == high, r["vs_reference_games"], fmt=pp, unit="games"
                )
            )
            diff = (
                "reference"
                if r["group"] == ref
                else f"{pp(r['difference'])} [{pp(r['difference_low'])}, {pp(r['difference_high'])}]"
            )
            field = (
                "reference"
                if r["group"] == ref
                else f"{pp(r['field_difference'])} [{pp(r['field_difference_low'])}, {pp(r['field_difference_high'])}]"
            )
            rows.append(
                [
                    f"**{r['group']}**" if r["group"] == ref else r["group"],
                    head,
                    adv,
                    pct(r["field_win_rate"]),
                    field,
                    pct(r["mean_win_rate"]),
                    pct(r["reference_mean_win_rate"]),
                    diff,
                ]
            )
        return "\n".join(
            [
                f"### Reference point: `{ref}`\n",
                f"How far each family is above bid-the-prize-rank: head to head (against {n - 1} "
                f"{'copy' if n == 2 else 'copies'} of it: win rate with its Wilson interval, advantage with its "
                "interval), against the field (win rate, and its difference from the reference's own win rate "
                "against the field), and against the other builtins (mean win rate over them, next to the "
                "reference's own mean against the same builtins, and the difference); differences with 95% normal "
                f"intervals. `tables/reference_{n}p.csv`.\n",
                table(
                    [
                        "row",
                        f"vs `{ref}`: win rate",
                        "advantage",
                        "vs field",
                        f"field: minus `{ref}`'s",
                        "mean vs other builtins",
                        f"`{ref}` vs the same",
                        "difference",
                    ],
                    rows,
                ),
                "",
            ]
        )

    def seen_section(self) -> str:
        rows = []
        for f in self.families:
            mine = [r for r in self.general if r["family"] == f]
            seen = self.seen[f]
            worst = []
            for b in seen:
                values = [c for c in self.champions if c["family"] == f and c["opponent"] == b]
                beaten = sum(c["beats"] for c in values)
                worst.append(f"`{b}` {beaten}/{len(values)}")
            family_beats = [self.champion_level(b)[f].low > 0 for b in seen]
            rows.append(
                [
                    f,
                    ", ".join(f"`{b}`" for b in seen),
                    f"{sum(r['beats_all_seen'] for r in mine)} of {len(mine)}",
                    "; ".join(worst),
                    "yes" if all(family_beats) else "no",
                ]
            )
        return "\n".join(
            [
                "### Does each champion beat every strategy it trained against?\n",
                "A champion *beats* a builtin when the 95% interval of its advantage (its sole-win rate minus the "
                "sole-win rate of one of the builtin's seats) lies above zero, over its own league games "
                f"(`tables/generalisation_{self.n}p.csv`, `tables/champions_{self.n}p.csv`): a statement about one "
                "champion. The family beats a builtin when the 95% interval of its champions' mean advantage over "
                "it (over champions, the independent units) lies above zero.\n",
                table(
                    [
                        "family",
                        "trained against",
                        "champions beating all of them",
                        "per opponent: champions beating it",
                        "family beats all (over champions)",
                    ],
                    rows,
                ),
                "",
            ]
        )

    def generalisation_section(self) -> str:
        s = {(r["method"], r["opponent"]): r for r in self.summary}
        rows = []
        for f in self.families:
            unseen = [b for b in self.builtins if b not in self.seen[f]]
            family_beats = [self.champion_level(b)[f].low > 0 for b in unseen]
            cells = []
            for part in ("seen", "unseen"):
                r = s.get((f, part))
                cells.append("–" if r is None else _summary(r))
            gap = [g["seen_advantage"] - g["unseen_advantage"] for g in self.general if g["family"] == f]
            rows.append(
                [
                    f,
                    ", ".join(f"`{b}`" for b in unseen) or "–",
                    *cells,
                    pp(float(np.mean(gap))) if gap else "–",
                    f"{sum(family_beats)} of {len(family_beats)}",
                ]
            )
        tests = [
            [
                r["method_a"],
                r["method_b"],
                "yes" if r["declared"] else "no",
                estimate(r["difference"], r["difference_low"], r["difference_high"], fmt=pp),
                estimate(r["a12"], r["a12_low"], r["a12_high"], fmt=lambda x: f"{x:.2f}"),
                r["effect"],
                pval(r["p"]),
                pval(r["p_holm"]),
            ]
            for r in self.tests
        ]
        return "\n".join(
            [
                "### Generalisation to unseen strategies\n",
                "Each champion's mean advantage over the builtins it trained against (seen) and over those it never met "
                "(unseen); mean over replicates with its 95% interval (bootstrap, Student-t below "
                f"{inf.MIN_BOOTSTRAP} replicates; replicates are the independent units; "
                f"`tables/generalisation_summary_{self.n}p.csv`). Gap: seen minus unseen. Last column: unseen builtins "
                "the family beats: the 95% interval of its champions' mean advantage over that builtin (over "
                "champions, the independent units) lies above zero.\n",
                table(
                    [
                        "family",
                        "unseen builtins",
                        "advantage on seen",
                        "advantage on unseen",
                        "gap",
                        "unseen beaten (over champions)",
                    ],
                    rows,
                ),
                "",
                "Mann–Whitney tests on the unseen advantage of the replicates, with the difference of the means "
                "and A₁₂ with their bootstrap intervals ("
                + declared_statement(self.analysis, self.data.plan.study.questions)
                + f" `tables/generalisation_tests_{self.n}p.csv`):\n",
                table(["A", "B", "declared", "mean A − mean B", "A₁₂", "effect", "p", "p (Holm)"], tests)
                if tests
                else "(fewer than two families)",
                "",
                self.reliability_text(),
                "",
                image(
                    self.figures.get("generalisation", []),
                    self.out,
                    f"{self.n} players: each champion's mean advantage over seen and unseen builtins.",
                ),
                "",
            ]
        )

    def reliability_text(self) -> str:
        """How reliable one run is on unseen builtins: the quantiles of the champions' unseen
        advantage per family (and the empirical distribution figure)."""
        rows = []
        for f in self.families:
            values = [g["unseen_advantage"] for g in self.general if g["family"] == f]
            values = [v for v in values if math.isfinite(v)]
            if values:
                rows.append([f, len(values)] + [pp(q) for q in inf.quantiles(values)])
        if not rows:
            return ""
        return "\n".join(
            [
                "How reliable one run is: quantiles of the champions' mean advantage over the unseen builtins "
                "(each champion is one independent run).\n",
                table(["family", "runs"] + [f"{round(100 * q)}%" for q in inf.QUANTILES], rows),
                "",
                image(
                    self.figures.get("reliability", []),
                    self.out,
                    f"{self.n} players: empirical distribution of the champions' mean advantage over seen and "
                    "unseen builtins.",
                ),
            ]
        )

    def champion_level(self, opponent: str, key: str = "advantage") -> dict[str, inf.Interval]:
        """Per family, the mean over its champions of ``key`` against ``opponent`` with its 95%
        interval over champions (the champions, not the games, are the independent units)."""
        out = {}
        for f in self.families:
            values = [c[key] for c in self.champions if c["family"] == f and c["opponent"] == opponent]
            rng = inf.generator(self.data.plan.seed, f"{self.n}p", key, opponent, f)
            out[f] = inf.mean_interval(values, rng)
        return out

    # ---- findings ----------------------------------------------------------------------------
    def findings(self) -> list[str]:
        n, ref = self.n, self.reference
        lines = []
        refs = {r["group"]: r for r in self.refs}
        head = self.champion_level(ref)
        count = {f: sum(1 for c in self.champions if c["family"] == f and c["opponent"] == ref) for f in self.families}

        def shown(f: str) -> str:
            i = head[f]
            return f"{f} {estimate(i.value, i.low, i.high, i.degenerate, count[f], fmt=pp)}"

        above = [f for f in self.families if head[f].low > 0]
        below = [f for f in self.families if head[f].high < 0]
        rest = [f for f in self.families if f not in above and f not in below]
        parts = []
        if above:
            parts.append(", ".join(shown(f) for f in above) + " beat it")
        if below:
            parts.append(", ".join(shown(f) for f in below) + " lose to it")
        if rest:
            parts.append(", ".join(shown(f) for f in rest) + ": cannot be separated from it")
        lines.append(
            f"- **{n} players, against `{ref}` head to head** (mean advantage of the family's champions, 95% "
            "interval over champions): " + "; ".join(parts) + "."
        )
        field = self.champion_level("field", "win_rate")
        ranked = sorted(self.families, key=lambda f: -field[f].value)
        reference_rate = refs[ref]["field_win_rate"]
        lines.append(
            f"- **{n} players, against the field** (each other seat a builtin drawn per game), the families' "
            f"mean win rates over champions (95% interval over champions) against `{ref}`'s "
            f"{pct(reference_rate)}: "
            + ", ".join(
                f"{f} {estimate(field[f].value, field[f].low, field[f].high, field[f].degenerate, count[f])}"
                for f in ranked
            )
            + "."
        )
        ranked = sorted(self.families, key=lambda f: -refs[f]["difference"])
        lines.append(
            f"- **{n} players, against the other builtins one at a time**, the families' pooled win rates "
            f"minus `{ref}`'s against the same builtins: "
            + ", ".join(
                f"{f} {pp(refs[f]['difference'])} [{pp(refs[f]['difference_low'])}, {pp(refs[f]['difference_high'])}]"
                for f in ranked
            )
            + " (95% intervals over games, champions pooled)."
        )
        lines.append(self.trained_against_finding())
        s = {r["method"]: r for r in self.summary if r["opponent"] == "unseen"}
        if s:
            by_mean = sorted(s.values(), key=lambda r: -r["mean"])
            best, others = by_mean[0], by_mean[1:]
            text = (
                f"- **{n} players, generalisation**: the highest mean advantage over the builtins the champions "
                f"never saw is {best['method']}'s ({_summary(best)}"
                + ("; then " + ", ".join(f"{r['method']} {pp(r['mean'])}" for r in others) if others else "")
                + "). "
                + declared_statement(self.analysis, self.data.plan.study.questions)
            )
            lines.append(text)
            for a, b in self.compared_pairs(best["method"]):
                rows = [(r, "unseen advantage") for r in self.tests if {r["method_a"], r["method_b"]} == {a, b}]
                phrases = merged_phrases(rows, a, b)
                if phrases:
                    lines.append(f"  - **{a} vs {b}**: " + "; ".join(phrases) + ".")
        return lines

    def compared_pairs(self, best: str) -> list[tuple[str, str]]:
        """The declared questions as labels, or, when the study declares none, the best family
        against each other family."""
        label = self.analysis.labels
        if self.data.plan.study.questions:
            return [(label[a], label[b]) for a, b in self.data.plan.study.questions]
        return [(best, f) for f in self.families if f != best]

    def trained_against_finding(self) -> str:
        """Which families have every champion beating every strategy it trained against (never
        "every champion of no family")."""
        mine = {f: [r for r in self.general if r["family"] == f] for f in self.families}
        complete = [f for f in self.families if mine[f] and all(r["beats_all_seen"] for r in mine[f])]
        partial = [
            f"in {f} {sum(r['beats_all_seen'] for r in mine[f])} of {len(mine[f])} champions do"
            for f in self.families
            if f not in complete
        ]
        head = f"- **{self.n} players, trained-against strategies**: "
        if not complete:
            return (
                head
                + "in no family does every champion beat every strategy it trained against ("
                + (", ".join(partial) + ").")
            )
        text = head + "every champion of " + ", ".join(complete) + " beats every strategy it trained against"
        return text + (("; " + ", ".join(partial)) if partial else "") + "."


def _summary(row: dict) -> str:
    """A generalisation summary row's mean advantage with its interval (or "all N replicates")."""
    return estimate(row["mean"], row["ci_low"], row["ci_high"], bool(row["all_equal"]), row["replicates"], fmt=pp)


def exploitability_section(rows: Sequence[dict], n: int, out: Path, figures: bool) -> str:
    """Table (``tables/exploitability_<n>p.csv``), figure and text of the exact exploitability
    of every champion, builtin and the equilibrium (two-player solvable games only)."""
    write_text(out / "tables" / f"exploitability_{n}p.csv", to_csv(list(rows)))
    paths = exploitability_figure(rows, out / "figures" / f"exploitability_{n}p") if figures else []
    groups = list(dict.fromkeys(r["group"] for r in rows))
    others = [k for k in rows[0] if k.startswith("exploitability_")] if rows else []
    summary = []
    for g in groups:
        mine = [r for r in rows if r["group"] == g]
        values = [r["exploitability"] for r in mine if r["exploitability"] is not None]
        games = [r["games"] for r in mine]
        summary.append(
            [
                f"**{g}**" if g == "equilibrium" else g,
                str(len(mine)),
                f"{float(np.median(games)):,.0f}",
                f"{float(np.median(values)):.3f}" if values else "–",
                f"{min(values):.3f} – {max(values):.3f}" if values else "–",
            ]
            + [_median_of(r[k] for r in mine) for k in others]
            + [str(len(mine) - len(values))]
        )
    return "\n".join(
        [
            f"### Exploitability ({n} players, exact)\n",
            "How much an exact best response wins against each player (win/draw/loss, +1/0/-1), the game's "
            "value being 0: 0 for the equilibrium, 1 for a player its best response beats in every game "
            "(`fsmarena exploit`; `tables/exploitability_" + f"{n}p.csv`: every player, its best-response value, "
            "the equilibrium's value against it). Games: games simulated by the champion's training (learners' "
            "episodes, evolution's fitness games). Champions are measured at the end of training; the next "
            "section follows them along it."
            + (
                " The last columns measure the same players with the points difference as the reward (how many "
                "points per game a best response wins beyond the value of that game, also 0); the equilibrium row "
                "is the win/draw/loss equilibrium, which the points game's own equilibrium exploits."
                if others
                else ""
            )
            + "\n",
            table(
                ["group", "players", "median games", "median exploitability", "range"]
                + [f"median {k.replace('_', ' (')})" for k in others]
                + ["too large"],
                summary,
            ),
            "",
            image(
                paths,
                out,
                f"{n} players: exploitability of each champion against the games its training simulated; "
                "dashed line: the equilibrium (0).",
            ),
            "",
        ]
    )


def _median_of(values: Any) -> str:
    known = [v for v in values if v is not None]
    return f"{float(np.median(known)):.3f}" if known else "–"


def exploitability_figure(rows: Sequence[dict], stem: Path) -> list[Path]:
    """Champions' exploitability against training games, one colour per family, the
    equilibrium as a reference line and the builtins as dotted ones."""
    from figures.style import COLUMN_WIDTH, color, plt, save, style

    trained = [r for r in rows if r["games"] > 0 and r["exploitability"] is not None]
    fixed = [r for r in rows if r["games"] == 0 and r["exploitability"] is not None and r["group"] != "equilibrium"]
    families = list(dict.fromkeys(r["group"] for r in trained))
    with style():
        fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 2.6))
        for k, family in enumerate(families):
            mine = [r for r in trained if r["group"] == family]
            ax.scatter(
                [r["games"] for r in mine], [r["exploitability"] for r in mine], s=14, color=color(k), label=family
            )
        for r in fixed:
            ax.axhline(r["exploitability"], color="0.6", linestyle=":", linewidth=0.6)
        # name the least exploitable builtin only (the others' lines often coincide)
        _reference_lines(ax, min(fixed, key=lambda r: r["exploitability"]) if fixed else None)
        if trained:
            from matplotlib.ticker import NullFormatter

            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("games simulated in training")
        ax.set_ylabel("exploitability (win/draw/loss)")
        ax.legend(loc="best", frameon=False)
        return save(fig, stem)


#: how each reward's exploitability reads
REWARD_NAMES = {"wdl": "win/draw/loss", "points": "points"}


def curve_rows(data: StudyData) -> list[dict[str, Any]]:
    """Exploitability along training, per reward, family and curve point: the games consumed
    and the median, minimum and maximum over the replicates measured there (a replicate whose
    player was too large to measure is left out of that point)."""
    rows = []
    for c in data.plan.competitors:
        records = [r for r in data.family(c.name) if r.curve_exploitability is not None]
        points = min((len(r.curve_games) for r in records), default=0)
        rewards = list(records[0].curve_exploitability or {}) if records else []
        for reward in rewards:
            for k in range(points):
                values = [v for r in records if (v := (r.curve_exploitability or {})[reward][k]) is not None]
                rows.append(
                    {
                        "reward": reward,
                        "family": c.label,
                        "point": k,
                        "games": int(np.median([r.curve_games[k] for r in records])),
                        "replicates": len(values),
                        "median": float(np.median(values)) if values else None,
                        "min": min(values) if values else None,
                        "max": max(values) if values else None,
                    }
                )
    return rows


def least_exploitable_builtins(rows: Sequence[dict], rewards: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per reward, the builtin of the panel its best response wins least from (name, value)."""
    out = {}
    for reward in rewards:
        key = "exploitability" if reward == rewards[0] else f"exploitability_{reward}"
        fixed = [r for r in rows if r["games"] == 0 and r["group"] != "equilibrium" and r.get(key) is not None]
        if fixed:
            best = min(fixed, key=lambda r: r[key])
            out[reward] = {"player": best["player"], "exploitability": best[key]}
    return out


def exploitability_curve_section(data: StudyData, rows: Sequence[dict], n: int, out: Path, figures: bool) -> str:
    """Table (``tables/exploitability_curve_<n>p.csv``), figure and text of every family's
    exploitability along training, against the games it consumed, one panel per reward;
    ``rows`` (the players' exploitability, :func:`exploitability_section`) give the reference
    lines."""
    curve = curve_rows(data)
    if not curve:
        return ""
    write_text(out / "tables" / f"exploitability_curve_{n}p.csv", to_csv(curve))
    rewards = list(dict.fromkeys(r["reward"] for r in curve))
    best = least_exploitable_builtins(rows, rewards)
    stem = out / "figures" / f"exploitability_curve_{n}p"
    paths = exploitability_curve_figure(curve, rewards, best, stem) if figures else []
    families = list(dict.fromkeys(r["family"] for r in curve))
    body = []
    for family in families:
        for k in sorted({r["point"] for r in curve if r["family"] == family}):
            cells = {r["reward"]: r for r in curve if r["family"] == family and r["point"] == k}
            first = cells[rewards[0]]
            body.append(
                [family, f"{first['games']:,}", str(first["replicates"])]
                + [_median_range(cells[reward]) for reward in rewards]
            )
    reference = "; ".join(
        f"{REWARD_NAMES.get(reward, reward)}: `{b['player']}` at {b['exploitability']:.3f}"
        for reward, b in best.items()
    )
    return "\n".join(
        [
            f"### Exploitability along training ({n} players, exact)\n",
            "At every point of its learning curve each replicate's player of the moment (the learner's greedy "
            "policy; evolution's hall-of-fame leader, the player the run would return had it stopped there) is "
            "measured exactly like the champions above, so learners and automata share one axis: the games "
            "their training simulated. Median over replicates [minimum – maximum], per reward the game is "
            f"solved for (`tables/exploitability_curve_{n}p.csv`); the last point of each family is its "
            f"champions. Least exploitable builtin: {reference}.\n",
            table(
                ["family", "games", "replicates"] + [f"exploitability ({REWARD_NAMES.get(r, r)})" for r in rewards],
                body,
            ),
            "",
            image(
                paths,
                out,
                f"{n} players: exploitability along training against the games simulated (log scale; median over "
                "replicates, band: minimum to maximum), one panel per reward; dashed: the equilibrium (0); dotted: "
                "the least exploitable builtin. Points at 0 games (untrained learners) are in the table only.",
            ),
            "",
        ]
    )


def _median_range(row: dict) -> str:
    if row["median"] is None:
        return "–"
    return f"{row['median']:.3f} [{row['min']:.3f} – {row['max']:.3f}]"


def exploitability_curve_figure(
    curve: Sequence[dict], rewards: Sequence[str], best: Mapping[str, dict], stem: Path
) -> list[Path]:
    """Per reward a panel: one line per family (median over replicates, band from minimum to
    maximum) of exploitability against games simulated, log x; the equilibrium and the least
    exploitable builtin as reference lines."""
    from matplotlib.ticker import NullFormatter

    from figures.style import COLUMN_WIDTH, color, plt, save, style

    families = list(dict.fromkeys(r["family"] for r in curve))
    with style():
        fig, axes = plt.subplots(1, len(rewards), figsize=(COLUMN_WIDTH * len(rewards), 2.8), squeeze=False)
        for ax, reward in zip(axes[0], rewards):
            shown = [r for r in curve if r["reward"] == reward and r["games"] > 0 and r["median"] is not None]
            for k, family in enumerate(families):
                mine = [r for r in shown if r["family"] == family]
                games = [r["games"] for r in mine]
                ax.plot(games, [r["median"] for r in mine], color=color(k), marker="o", markersize=2.5, label=family)
                ax.fill_between(games, [r["min"] for r in mine], [r["max"] for r in mine], color=color(k), alpha=0.18)
            if reward in best:
                ax.axhline(best[reward]["exploitability"], color="0.4", linestyle=":", linewidth=0.8)
            _reference_lines(ax, best.get(reward))
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("games simulated in training")
            ax.set_ylabel(f"exploitability ({REWARD_NAMES.get(reward, reward)})")
        axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=6)
        fig.tight_layout()
        return save(fig, stem)


def _reference_lines(ax: Any, best_builtin: Mapping[str, Any] | None) -> None:
    """The exploitability figures' references: the equilibrium at 0 and, named, the least
    exploitable builtin (its row: ``player``, ``exploitability``)."""
    ax.axhline(0.0, color="black", linestyle="--", linewidth=0.8, label="equilibrium")
    if best_builtin is not None:
        ax.annotate(
            f"best builtin: {best_builtin['player']}",
            (0.02, best_builtin["exploitability"]),
            xycoords=("axes fraction", "data"),
            fontsize=6,
            va="bottom",
        )


def write_vautour_report(
    study,
    scale: str,
    results: Mapping[int, tuple[StudyData, Analysis, LeagueResult]],
    out: Path,
    figures: bool,
    command: str,
    wall_seconds: float,
    exploitability: Mapping[int, Sequence[dict]] | None = None,
) -> dict[str, Any]:
    """Write the tables, figures and ``out/report.md``; return a JSON-ready summary (with the
    exploitability section when the study's game is solvable)."""
    exploitability = exploitability or {}
    parts = [_Part(study, data, analysis, result, out, figures) for data, analysis, result in results.values()]
    first = parts[0].data
    plan = first.plan
    base = study.base
    params = config_to_dict(first.game.config)
    params.pop("players", None)
    comp_rows = []
    for c in plan.competitors:
        settings = ", ".join(f"{k}={v}" for k, v in c.params.items() if k not in ("opponents", "panel"))
        comp_rows.append(
            [
                f"`{c.name}`",
                c.label,
                f"`{c.method}`",
                ", ".join(f"`{b}`" for b in training_opponents(c.method, dict(c.params))),
                settings,
                c.replicates,
            ]
        )
    timing = []
    for part in parts:
        per: dict[str, list[float]] = {}
        for rec in part.data.records.values():
            per.setdefault(rec.competitor, []).append(rec.train_seconds + rec.panel_seconds)
        timing += [[f"{part.n}", name, f"{sorted(v)[len(v) // 2]:.1f}", f"{sum(v):.1f}"] for name, v in per.items()]
    text = [
        f"# {base.title}\n",
        f"Study `{base.name}` (version {base.version}), scale `{scale}`, written by fsmarena {__version__}.\n",
        "## Question\n",
        base.question.strip() + "\n",
        "## Protocol\n",
        f"- **Game** `{base.game}` with {', '.join(str(n) for n in study.players)} players and parameters "
        + ", ".join(f"{k}={val}" for k, val in params.items())
        + ". Learners and automata train on the same game "
        "with the parameters of their `game_params` (abstract bids); everybody meets in the study's game.",
        f"- **Scale** `{scale}`: "
        + (plan.scale.description or "")
        + f"; master seed {plan.seed}; "
        + ", ".join(f"{p.n} players: protocol fingerprint `{p.data.plan.fingerprint}`" for p in parts)
        + ".",
        "- **Per player count** a complete study on the generic runner in `<n>-players/` (its own `report.md`: "
        "learning curves against `" + base.curve_opponent + f"`, {plan.scale.panel_games:,} games per champion and "
        "builtin, cross-play in the two-player game), then a **league**: every champion, every builtin and the "
        f"field against copies of each other, at least {study.league_games[scale]:,} games per ordered pair of "
        "groups (a family's champions pooled, or one builtin), the single seat rotated over all seats; seeds "
        "`SeedSequence(master, spawn_key=(2**32 + 16 + n,))`.",
        "- **Seen / unseen**: each competitor's training opponents (its `opponents` or evolution `panel`) are its "
        "seen builtins; the other builtins of the panel are never met in training.",
        "",
        table(["name", "label", "method", "trained against", "parameters", "replicates"], comp_rows),
        "",
    ]
    for part in parts:
        text.append(part.section())
        if part.n in exploitability:
            text.append(exploitability_section(exploitability[part.n], part.n, out, figures))
            text.append(exploitability_curve_section(part.data, exploitability[part.n], part.n, out, figures))
    text += ["## Conclusions\n"]
    for part in parts:
        text += part.findings()
    text += [
        '- In games of three or more, "against B" means against copies of B: identical deterministic '
        "builtins bid the same cards and cancel each other (e.g. two `max` players never win a bid), which "
        "makes such columns easy; the *field* column, where each other seat draws a builtin per game, is the "
        "harder and more realistic test.",
        "",
        "## Compute\n",
        "Seconds per replicate task (training + panel games), one core each:\n",
        table(["players", "competitor", "median s", "total s"], timing),
        f"\nWall-clock time of this invocation: {wall_seconds / 60:.1f} min.\n",
        reproduce_section(
            command,
            [
                "`tables/*_<n>p.csv`: every number of this report, per player count",
                *(["`figures/*.png`, `figures/*.pdf`: the figures"] if figures else []),
                "`<n>-players/`: the generic study of each player count (its own `report.md`, tables, figures, "
                "players, raw results; `raw/league.json`: the league's raw counts)",
            ],
        ),
    ]
    path = out / "report.md"
    write_text(path, "\n".join(t for t in text if t is not None) + "\n")
    return {
        "study": base.name,
        "scale": scale,
        "seed": plan.seed,
        "report": str(path),
        "fingerprints": {str(p.n): p.data.plan.fingerprint for p in parts},
        "reference": {
            str(p.n): [
                {
                    "group": f,
                    **{k: p.pairs[(f, study.reference)][k] for k in ("win_rate", "ci_low", "ci_high", "advantage")},
                }
                for f in p.families
            ]
            for p in parts
        },
        "generalisation": {str(p.n): p.summary for p in parts},
        "exploitability": {str(n): list(rows) for n, rows in exploitability.items()},
        "exploitability_curve": {str(p.n): curve_rows(p.data) for p in parts if p.n in exploitability},
    }
