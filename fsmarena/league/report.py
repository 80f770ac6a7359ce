"""The text of one player count's league (:mod:`fsmarena.league.tables`): the league table, the
reference point, trained-against strategies, generalisation to unseen ones, and the findings.

Every family statement rests on the champions (one per replicate), never on games pooled over
champions (docs/statistics.md): a family "beats" a builtin when the 95% interval of its
champions' mean advantage over it lies above zero, "loses to it" when it lies below, and
otherwise the two "cannot be separated".  Figures are drawn elsewhere (:mod:`fsmarena.league.layout`, with :mod:`fsmarena.figures.outcomes`);
this module is given the files drawn (none without figures) and shows only those.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from fsmarena.league.tables import FIELD, LeagueTables
from fsmarena.stats import inference as inf
from fsmarena.studies.analysis import Analysis
from fsmarena.studies.comparison_report import declared_statement, merged_phrases
from fsmarena.studies.report_text import estimate, image, pct, pp, pval, sentences, table, within_rates

Drawn = Mapping[str, Sequence[Path]]


def _cell(row: dict | None) -> str:
    """A league cell: the mean win rate with its interval (unit in the table's caption)."""
    if row is None:
        return "–"
    count, noun = _units(row)
    return estimate(row["win_rate"], row["ci_low"], row["ci_high"], bool(row["all_equal"]), count, unit=noun)


def _units(row: dict) -> tuple[int, str]:
    """How many of what a league row's interval is over (said when they are all alike)."""
    return (row["games"], "games") if row["unit"] == "games" else (row["pairings"], "pairings")


def league_section(
    t: LeagueTables, analysis: Analysis, drawn: Drawn, out: Path, curve_opponent: str, evolved_against: str = "random"
) -> str:
    """``## <n> players``: the league table and every subsection of this player count
    (``evolved_against``: whom the evolved families' curves were measured against)."""
    n, ref = t.n, t.reference
    copies = "one copy" if n == 2 else f"{n - 1} copies"
    seen_all = sorted({b for v in t.seen.values() for b in v}, key=t.builtins.index)
    header = ["row \\ column"] + [f"`{b}`{' *' if b in seen_all else ''}" for b in t.builtins] + t.families + [FIELD]
    rows = [
        [f"**{g}**" if g == ref else g] + [_cell(t.pairs.get((g, h))) for h in t.builtins + t.families + [FIELD]]
        for g in t.families + t.builtins
    ]
    text = [
        f"## {n} players\n",
        "### Everyone against everyone\n",
        f"Win rate of the row against {copies} of the column, with its 95% interval, at least "
        f"{min(r['games'] for r in t.league):,} games per cell (`tables/league_{n}p.csv`; a fair share is "
        f"{pct(1 / n)}). A family's cell is the mean over its champions' pairings and its interval resamples the "
        "champions (both families' independently when the column is a family too): the champions, not the games, "
        "are the independent units. Between two builtins, or a builtin and the field, the interval is Wilson's "
        "over the games (one fixed pair of players). Builtins marked * are training opponents (seen); *field*: "
        "each other seat draws one of the builtins per game.\n",
        table(header, rows),
        "",
        image(drawn.get("heatmap", []), out, f"{n} players: the league as a heat map."),
        reference_section(t),
        seen_section(t),
        generalisation_section(t, analysis, drawn, out),
        image(
            drawn.get("outcomes", []),
            out,
            f"{n} players: each champion's win rate against each builtin (dots: replicates; dotted line: a fair share).",
        ),
        curves_section(t, analysis, drawn, out, curve_opponent, evolved_against),
    ]
    return _joined(text)


def curves_section(
    t: LeagueTables, analysis: Analysis, drawn: Drawn, out: Path, curve_opponent: str, evolved_against: str = "random"
) -> str:
    """The learning curves and best machines, when drawn ("" without figures: no empty heading)."""
    text = [
        image(
            drawn.get("curves_train", []),
            out,
            f"{t.n} players: learners' win rate against `{curve_opponent}` (in the training game) vs training "
            "games; median and inter-quartile band over replicates.",
        ),
        image(
            drawn.get("curves_evolve", []),
            out,
            f"{t.n} players: the generation champion's win rate against `{evolved_against}` vs games simulated by "
            "the evolution; median and inter-quartile band over replicates.",
        ),
    ]
    for name, replicate in analysis.best.items():
        text.append(
            image(
                drawn.get(f"best_{name}", []),
                out,
                f"{t.n} players: the best {analysis.labels[name]} (replicate {replicate}, highest win rate against "
                f"`{curve_opponent}` in the panel games); player file "
                f"`{t.n}-players/players/{name}/r{replicate:03d}.json`.",
            )
        )
    shown = [x for x in text if x]
    return "\n".join(["### Learning curves and the best machines\n", *shown]) if shown else ""


def _difference(row: dict, key: str, count: int, unit: str) -> str:
    """``row[key]`` in percentage points with its interval (said so when all units agree); a
    difference of two rates lies in [-100, +100] pp, and an interval end beyond is cut there."""
    low, high = within_rates(row[f"{key}_low"], row[f"{key}_high"])
    return estimate(row[key], low, high, row[f"{key}_all_equal"], count, pp, unit)


#: families one listing sentence names at most; a longer list goes on in a sentence of its own
PER_SENTENCE = 6


def in_sentences(items: Sequence[str], per: int = PER_SENTENCE, then: str = "Then") -> str:
    """``items`` joined by commas, ``per`` to a sentence ("... Then ..."): a list of twelve
    families' estimates in one sentence runs past 90 words."""
    groups = [", ".join(items[i : i + per]) for i in range(0, len(items), per)]
    return f". {then} ".join(groups)


def _joined(parts: Sequence[str]) -> str:
    """Parts of a section, one per line, with at most one blank line between blocks."""
    return re.sub(r"\n{3,}", "\n\n", "\n".join(parts))


def reference_section(t: LeagueTables) -> str:
    ref, n = t.reference, t.n
    rows = []
    for r in t.refs:
        if r["group"] == ref:
            rows.append(
                [
                    f"**{ref}**",
                    "–",
                    "–",
                    pct(r["field_win_rate"]),
                    "reference",
                    "–",
                    pct(r["reference_mean_win_rate"]),
                    "reference",
                ]
            )
            continue
        count, noun = _units(t.pairs[(r["group"], ref)])
        head = estimate(
            r["vs_reference_win_rate"],
            r["vs_reference_ci_low"],
            r["vs_reference_ci_high"],
            r["vs_reference_all_equal"],
            count,
            unit=noun,
        )
        rows.append(
            [
                r["group"],
                head,
                _difference(r, "vs_reference_advantage", count, noun),
                pct(r["field_win_rate"]),
                _difference(r, "field_difference", r["units"], r["unit"]),
                pct(r["mean_win_rate"]),
                pct(r["reference_mean_win_rate"]),
                _difference(r, "difference", r["units"], r["unit"]),
            ]
        )
    return "\n".join(
        [
            f"### Reference point: `{ref}`\n",
            f"How far each family is above `{ref}`, in three ways. Head to head: against {n - 1} "
            f"{'copy' if n == 2 else 'copies'} of it, the win rate and the advantage. Against the field: the win "
            "rate, and its difference from the reference's own win rate against the field. Against the other "
            "builtins: the mean win rate over them, next to the reference's own mean against the same builtins, "
            "and the difference. 95% intervals: a family's over its champions (the reference's own rates, one "
            f"fixed player's, taken as given); a builtin's over the games. `tables/reference_{n}p.csv`.\n",
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


def seen_section(t: LeagueTables) -> str:
    rows = []
    for f in t.families:
        mine = [r for r in t.general if r["family"] == f]
        per = []
        for b in t.seen[f]:
            values = [c for c in t.champions if c["family"] == f and c["opponent"] == b]
            per.append(f"`{b}` {sum(c['beats'] for c in values)}/{len(values)}")
        family_beats = [t.champion_level(b)[f].low > 0 for b in t.seen[f]]
        rows.append(
            [
                f,
                ", ".join(f"`{b}`" for b in t.seen[f]),
                f"{sum(r['beats_all_seen'] for r in mine)} of {len(mine)}",
                "; ".join(per),
                "yes" if all(family_beats) else "no",
            ]
        )
    return "\n".join(
        [
            "### Does each champion beat every strategy it trained against?\n",
            "A champion *beats* a builtin when the 95% interval of its advantage (its sole-win rate minus the "
            "sole-win rate of one of the builtin's seats) lies above zero, over its own league games "
            f"(`tables/generalisation_{t.n}p.csv`, `tables/champions_{t.n}p.csv`): a statement about one "
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


def _summary(row: dict) -> str:
    """A generalisation summary row's mean advantage with its interval (or "all N replicates")."""
    return estimate(row["mean"], row["ci_low"], row["ci_high"], bool(row["all_equal"]), row["replicates"], fmt=pp)


def generalisation_section(t: LeagueTables, analysis: Analysis, drawn: Drawn, out: Path) -> str:
    s = {(r["method"], r["opponent"]): r for r in t.summary}
    rows = []
    for f in t.families:
        unseen = [b for b in t.builtins if b not in t.seen[f]]
        family_beats = [t.champion_level(b)[f].low > 0 for b in unseen]
        cells = ["–" if s.get((f, part)) is None else _summary(s[(f, part)]) for part in ("seen", "unseen")]
        gap = [g["seen_advantage"] - g["unseen_advantage"] for g in t.general if g["family"] == f]
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
        for r in t.tests
    ]
    return "\n".join(
        [
            "### Generalisation to unseen strategies\n",
            "Each champion's mean advantage over the builtins it trained against (seen) and over those it never met "
            "(unseen); mean over replicates with its 95% interval (bootstrap, Student-t below "
            f"{inf.MIN_BOOTSTRAP} replicates; replicates are the independent units; "
            f"`tables/generalisation_summary_{t.n}p.csv`). Gap: seen minus unseen. Last column: unseen builtins "
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
            f"and A₁₂ with their bootstrap intervals (`tables/generalisation_tests_{t.n}p.csv`). "
            + declared_statement(analysis, t.questions)
            + "\n",
            table(["A", "B", "declared", "mean A − mean B", "A₁₂", "effect", "p", "p (Holm)"], tests)
            if tests
            else "(fewer than two families)",
            "",
            reliability_text(t, drawn, out),
            "",
            image(
                drawn.get("generalisation", []),
                out,
                f"{t.n} players: each champion's mean advantage over seen and unseen builtins.",
            ),
            "",
        ]
    )


def reliability_text(t: LeagueTables, drawn: Drawn, out: Path) -> str:
    """How reliable one run is on unseen builtins: the quantiles of the champions' unseen
    advantage per family (and the empirical distribution figure)."""
    rows = []
    for f in t.families:
        values = [g["unseen_advantage"] for g in t.general if g["family"] == f and math.isfinite(g["unseen_advantage"])]
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
                drawn.get("reliability", []),
                out,
                f"{t.n} players: empirical distribution of the champions' mean advantage over seen and unseen builtins.",
            ),
        ]
    )


# ---- findings -----------------------------------------------------------------------------------


def detectable(values: Sequence[float]) -> str:
    """The smallest mean the champions' spread would have told from zero with 80% power (a
    two-sided one-sample test at 5%, Student-t with n - 1 degrees of freedom), in pp; "–" when
    the champions are too few or all alike, "none" when it is beyond the ±100 pp an advantage
    can take (two champions far apart: no advantage at all would have been detected)."""
    x = np.asarray(values, float)
    if len(x) < 2 or float(np.ptp(x)) == 0.0:
        return "–"
    size = inf.detectable_difference(float(x.std(ddof=1)) / math.sqrt(len(x)), 0.05, df=len(x) - 1)
    return "none" if size > 1.0 else pp(size).replace("+", "")


def head_to_head(t: LeagueTables) -> str:
    """The families against the reference head to head, in sentences: those that beat it, those
    that lose to it, and those that cannot be separated from it, each with the advantage 80%
    power would have detected (a few families to a sentence: twelve in one run past 120 words)."""
    intervals = t.champion_level(t.reference)
    values = {f: t.champion_values(f, t.reference, "advantage") for f in t.families}

    def shown(f: str) -> str:
        i = intervals[f]
        return f"{f} {estimate(i.value, i.low, i.high, i.degenerate, len(values[f]), fmt=pp)}"

    above = [shown(f) for f in t.families if intervals[f].low > 0]
    below = [shown(f) for f in t.families if intervals[f].high < 0]
    rest = [
        f"{shown(f)} (detectable: {detectable(values[f])})"
        for f in t.families
        if intervals[f].low <= 0 <= intervals[f].high
    ]
    parts = []
    if above:
        parts.append("Beat it: " + in_sentences(above, per=4, then="Also"))
    if below:
        parts.append("Lose to it: " + in_sentences(below, per=4, then="Also"))
    if rest:
        parts.append(
            "Cannot be separated from it, with the advantage 80% power would have detected: "
            + in_sentences(rest, per=3, then="Also")
        )
    return ". ".join(parts)


def findings(t: LeagueTables, analysis: Analysis) -> list[str]:
    """The conclusions of one player count, each from a champion-level statistic."""
    n, ref = t.n, t.reference
    refs = {r["group"]: r for r in t.refs}
    count = {f: len(t.champion_values(f, ref, "advantage")) for f in t.families}
    if n == 2:
        lines = [
            f"- **{n} players, against `{ref}` head to head**: the mean advantage of each family's champions, "
            "with its 95% interval over champions. " + head_to_head(t) + "."
        ]
        lines += declared_head_to_head(t, analysis)
    else:  # against copies of one builtin: a check that the champions exploit it, not a comparison
        lines = [
            f"- **{n} players, a check rather than a finding: against {n - 1} copies of `{ref}`**: identical "
            "copies of a deterministic builtin bid alike and cancel each other, so this design is easy. The mean "
            "advantage of each family's champions, with its 95% interval over champions. " + head_to_head(t) + "."
        ]
    field = t.champion_level(FIELD, "win_rate")
    ranked = sorted(t.families, key=lambda f: -field[f].value)
    lines.append(
        f"- **{n} players, against the field** (each other seat a builtin drawn per game), the families' "
        f"mean win rates over champions (95% interval over champions) against `{ref}`'s "
        f"{pct(refs[ref]['field_win_rate'])}: "
        + ", ".join(
            f"{f} {estimate(field[f].value, field[f].low, field[f].high, field[f].degenerate, count[f])}"
            for f in ranked
        )
        + "."
    )
    ranked = sorted(t.families, key=lambda f: -refs[f]["difference"])
    lines.append(
        f"- **{n} players, against the other builtins one at a time**, the families' mean win rates minus "
        f"`{ref}`'s against the same builtins (95% intervals over champions): "
        + in_sentences([f"{f} " + _difference(refs[f], "difference", refs[f]["units"], "champions") for f in ranked])
        + "."
    )
    lines.append(trained_against_finding(t.n, t.families, t.general))
    s = {r["method"]: r for r in t.summary if r["opponent"] == "unseen"}
    if s:
        by_mean = sorted(s.values(), key=lambda r: -r["mean"])
        best, others = by_mean[0], by_mean[1:]
        lines.append(
            f"- **{n} players, generalisation**: the highest mean advantage over the builtins the champions "
            f"never saw is {best['method']}'s ({_summary(best)}"
            + "); a highest mean is no claim that it leads. "
            + (
                "The others' means: " + in_sentences([f"{r['method']} {pp(r['mean'])}" for r in others]) + ". "
                if others
                else ""
            )
            + declared_statement(analysis, t.questions)
        )
        for a, b in compared_pairs(t, analysis, best["method"]):
            rows = [(r, "unseen advantage") for r in t.tests if {r["method_a"], r["method_b"]} == {a, b}]
            phrases = merged_phrases(rows, a, b)
            if phrases:
                lines.append(f"  - **{a} vs {b}**: " + sentences(phrases))
    return lines


def declared_head_to_head(t: LeagueTables, analysis: Analysis) -> list[str]:
    """The declared pairs of families against each other in a two-player league: the first
    family's mean win rate against the second's champions, its 95% interval over both
    families' champions, and how many of its champions win more than half their games."""
    lines = []
    for a, b in ((analysis.labels[x], analysis.labels[y]) for x, y in t.questions):
        row = t.pairs.get((a, b))
        if row is None:
            continue
        ahead, count = row["members_above_fair_share"], row["members"]
        shown = estimate(row["win_rate"], row["ci_low"], row["ci_high"], bool(row["all_equal"]), count)
        if row["ci_low"] > 0.5:
            verdict = f"{a} ahead"
        elif row["ci_high"] < 0.5:
            verdict = f"{b} ahead"
        else:
            verdict = "not separated"
        lines.append(
            f"{a} wins {shown} of its games against {b} ({ahead} of its {count} champions above half): {verdict}"
        )
    if not lines:
        return []
    return [
        f"- **{t.n} players, the declared pairs head to head** (the first family's win rate against the second's "
        "champions, 95% interval over both families' champions; each pair at 95%): " + sentences(lines)
    ]


def compared_pairs(t: LeagueTables, analysis: Analysis, best: str) -> list[tuple[str, str]]:
    """The declared questions as labels, or, when the study declares none, the best family
    against each other family."""
    if t.questions:
        return [(analysis.labels[a], analysis.labels[b]) for a, b in t.questions]
    return [(best, f) for f in t.families if f != best]


def trained_against_finding(n: int, families: Sequence[str], general: Sequence[dict]) -> str:
    """Which families have every champion beating every strategy it trained against (never
    "every champion of no family")."""
    mine = {f: [r for r in general if r["family"] == f] for f in families}
    complete = [f for f in families if mine[f] and all(r["beats_all_seen"] for r in mine[f])]
    partial = [
        f"{f} {sum(r['beats_all_seen'] for r in mine[f])} of {len(mine[f])}" for f in families if f not in complete
    ]
    head = f"- **{n} players, trained-against strategies**: "
    if not complete:
        text = head + "in no family does every champion beat every strategy it trained against"
        return text + ". The champions that do: " + in_sentences(partial) + "."
    text = head + "every champion of " + ", ".join(complete) + " beats every strategy it trained against"
    return (
        text + ((". In the other families, the champions that do: " + in_sentences(partial)) if partial else "") + "."
    )
