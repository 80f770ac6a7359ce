"""Cross-play in a study report: every family against every other, with two-way cluster
intervals over champions, the head-to-head spread, the league, and the words a conclusion
uses for one pair ("ahead by", "level", "cannot be separated"; docs/statistics.md)."""

from __future__ import annotations

from fsmarena.stats import comparisons as st
from fsmarena.studies.analysis import Analysis
from fsmarena.studies.report_text import estimate, figure, p_is, pct, pp, summary_cell, table
from fsmarena.studies.runner import StudyData

ALPHA = st.ALPHA


def crossplay_section(data: StudyData, analysis: Analysis) -> str:
    """The cross-play: the win-rate matrix, the heat map, each pair's record and spread, the league."""
    if "crossplay_family" not in analysis.tables:
        return ""
    rows_in = analysis.tables["crossplay_family"]
    methods = list(dict.fromkeys(r["method"] for r in rows_in))
    rows, spread_rows = _win_rate_matrix(rows_in, methods), _record_rows(rows_in, methods)
    league_rows = [
        [r["method"], r["replicates"], summary_cell(r), f"{pct(r['median'])} ({pct(r['q1'])}–{pct(r['q3'])})"]
        for r in analysis.tables["crossplay_league_summary"]
    ]
    text = [
        "### Cross-play\n",
        "Win rate of the row family's champions against the column family's, averaged over every pairing of "
        "their champions, with a 95% two-way cluster interval: both families' champions are samples, so the "
        "interval resamples the champions of each family independently (`tables/crossplay_family.csv`; "
        "docs/statistics.md). The diagonal is empty: a family against its own champions is no comparison of "
        "families. Draws make a row's and a column's rates sum to less than 100%.\n",
        table(["row \\ column"] + methods, rows),
        "",
        figure(
            analysis,
            "crossplay_heatmap",
            "Cross-play: row family's net score against the column family (wins − losses per 100 games), "
            "with its 95% champion-level interval.",
            data.out,
        ),
        "Head-to-head records, each pair once (the other direction is in the CSV). The net score is wins − "
        "losses per game, the mean over pairings of champions, with its 95% two-way cluster interval. The "
        "champions column is the champion-level sign test: how many of the row's champions are ahead of the "
        "whole column family, and how many of the column's are ahead of the whole row family (p: the larger "
        "of the two sign tests). The spread is over the row family's champions, each one's win rate against "
        "the whole column family (median, inter-quartile range, range):\n",
        table(
            [
                "row",
                "column",
                "games",
                "win",
                "loss",
                "net score",
                "champions",
                "champions: median (IQR)",
                "champions: range",
            ],
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
        "(`tables/crossplay_league.csv`); mean with its 95% interval over replicates, median and IQR.\n",
        table(["method", "champions", "mean [95% CI]", "median (IQR)"], league_rows),
        "",
    ]
    return "\n".join(text)


def _win_rate_matrix(rows_in: list[dict], methods: list[str]) -> list[list[str]]:
    """The row family's win rate against the column family, with its interval; "–" where none."""
    rows = []
    for m in methods:
        cells = [m]
        for o in methods:
            r = next((x for x in rows_in if x["method"] == m and x["opponent_method"] == o), None)
            cells.append("–" if r is None else estimate(r["win_rate"], r["ci_low"], r["ci_high"]))
        rows.append(cells)
    return rows


def _record_rows(rows_in: list[dict], methods: list[str]) -> list[list[str]]:
    """Each pair once, in the study's order: games, rates, net score, sign test, spread."""
    return [
        [
            r["method"],
            r["opponent_method"],
            f"{r['games']:,}",
            pct(r["win_rate"]),
            pct(r["loss_rate"]),
            estimate(r["net"], r["net_ci_low"], r["net_ci_high"], fmt=pp),
            f"{r['champions_ahead']}/{r['champions']} ahead, {r['opponents_ahead']} of theirs ahead; {p_is(r['sign_p'])}",
            f"{pct(r['champion_median'])} ({pct(r['champion_q1'])}–{pct(r['champion_q3'])})",
            f"{pct(r['champion_min'])}–{pct(r['champion_max'])}",
        ]
        for r in rows_in
        if methods.index(r["method"]) < methods.index(r["opponent_method"])
    ]


def crossplay_row(analysis: Analysis, a: str, b: str) -> dict | None:
    rows = analysis.tables.get("crossplay_family", [])
    return next((r for r in rows if r["method"] == a and r["opponent_method"] == b), None)


def crossplay_phrase(row: dict) -> str:
    """The cross-play of the row's family against its opponent in words."""
    verdict = st.crossplay_verdict(row)
    net = estimate(row["net"], row["net_ci_low"], row["net_ci_high"], fmt=pp)
    champions = f"{row['champions_ahead']}/{row['champions']} champions ahead, sign test {p_is(row['sign_p'])}"
    if row.get("fixed_pair"):
        champions = f"two builtins, 95% interval over their {row['games']:,} games"
    if verdict == "ahead":
        return f"{row['method']} ahead by {net} net ({champions})"
    if verdict == "behind":
        reverse = estimate(-row["net"], -row["net_ci_high"], -row["net_ci_low"], fmt=pp)
        return f"{row['opponent_method']} ahead by {reverse} net ({champions} for {row['method']})"
    if verdict == "level":
        return f"level ({net} net, within ±{100 * st.LEVEL_MARGIN:.0f} pp)"
    if not row.get("sign_attainable", True):
        few = f"{row['champions']} and {row['opponent_champions']} champions"
        if _too_few_for_the_sign_test(row):
            return f"interval {net} net excludes zero, but the sign test decides and with {few} it cannot reach {ALPHA}"
        return f"not separated ({net} net); with {few} no sign test could reach {ALPHA}"
    detectable = pp(row["detectable"]).replace("+", "")
    if row["net_ci_low"] > 0 or row["net_ci_high"] < 0:
        return f"interval {net} net excludes zero, but the sign test decides and does not reject ({champions})"
    return f"cannot be separated ({net} net, {champions}); {detectable} would have been detected with 80% power"


def crossplay_overview(analysis: Analysis) -> list[str]:
    rows = analysis.tables["crossplay_family"]
    methods = list(dict.fromkeys(r["method"] for r in rows))
    lines = [
        "- **Cross-play** (net score, wins − losses per game, over pairings of champions; a family is *ahead* "
        "when the 95% two-way cluster interval excludes zero and the champion-level sign test agrees, *level* "
        f"when the interval lies within ±{100 * st.LEVEL_MARGIN:.0f} pp; each pair at 95%, not corrected for "
        "the number of pairs):"
    ]
    for a in methods:
        found: dict[str, list[str]] = {
            "ahead": [],
            "level": [],
            "not separated": [],
            "unconfirmed": [],
            "too few": [],
            "behind": [],
        }
        for b in methods:
            pair = crossplay_row(analysis, a, b)
            if pair is None or a == b:
                continue
            verdict = st.crossplay_verdict(pair)
            net = estimate(pair["net"], pair["net_ci_low"], pair["net_ci_high"], fmt=pp)
            if verdict == "not separated" and _too_few_for_the_sign_test(pair):
                found["too few"].append(f"{b} ({net}; {pair['champions']} and {pair['opponent_champions']} champions)")
            elif verdict == "not separated" and _excludes_zero(pair):
                found["unconfirmed"].append(f"{b} ({net}; {p_is(pair['sign_p'], 'sign test p')})")
            elif verdict in found:
                found[verdict].append(f"{b} ({net})")
        parts = [f"ahead of {'; '.join(found['ahead'])}"] if found["ahead"] else []
        parts += [f"level with {'; '.join(found['level'])}"] if found["level"] else []
        parts += [f"not separated from {'; '.join(found['not separated'])}"] if found["not separated"] else []
        if found["unconfirmed"]:
            parts.append(
                f"interval excluding zero against {'; '.join(found['unconfirmed'])}, but the champion-level "
                "sign test, which decides, does not confirm it"
            )
        if found["too few"]:
            parts.append(
                f"interval excluding zero against {'; '.join(found['too few'])}, "
                f"but the sign test decides and cannot reach {ALPHA} with so few champions"
            )
        if not parts:  # a family behind every other one says so, not an empty line
            parts = [f"behind all {len(found['behind'])} other families"]
        lines.append(f"  - {a}: " + ". ".join(p[0].upper() + p[1:] for p in parts) + ".")
    return lines


def _excludes_zero(row: dict) -> bool:
    return bool(row["net_ci_low"] > 0 or row["net_ci_high"] < 0)


def _too_few_for_the_sign_test(row: dict) -> bool:
    """The interval excludes zero, but no sign test on these champion counts could agree."""
    return _excludes_zero(row) and not row.get("sign_attainable", True)
