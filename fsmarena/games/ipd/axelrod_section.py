"""The report section of the Axelrod-tournament stage (:mod:`fsmarena.games.ipd.axelrod_stage`):
each family's mean score per turn over its champions with a 95% replicate-level interval and its
champions' ranks, beside Harper et al.'s evolved machines and Axelrod's strategies measured in the
same run; the table also goes to ``axelrod_tournament.csv`` in the study's folder."""

from __future__ import annotations

import csv
import io
import math

from fsmarena.extras import install_hint
from fsmarena.fileio import write_text
from fsmarena.games.ipd.axelrod_stage import HARPER, TURNS, family_rows
from fsmarena.studies.registry import Entry
from fsmarena.studies.results import StudyResults

COLUMNS = ("group", "family", "replicates", "score_per_turn", "low", "high", "median_rank", "best_rank")
#: entrants the page's table shows besides the families and Harper et al.'s machines (the best
#: by score); the CSV has every entrant
TOP = 10


def shown(rows: list[dict]) -> list[dict]:
    """The rows the page's table shows, in the table's order: every family, Harper et al.'s
    machines (named by class in :data:`HARPER`, by display name in the tournament) and the
    :data:`TOP` best of the others."""
    harper = set(HARPER)
    kept, others = [], 0
    for row in rows:
        always = row["family"] or str(row["group"]).replace(" ", "") in harper
        if always or others < TOP:
            kept.append(row)
            others += not always
    return kept


def _number(value: float) -> str:
    return "–" if isinstance(value, float) and math.isnan(value) else f"{value:.3f}"


def section(results: StudyResults, figures: bool) -> str:
    """``## The Axelrod tournament``: the ranks table of every part that ran the stage ("" if none)."""
    texts = []
    for part, data in results.parts.items():
        result = data.stages.get("axelrod")
        if result is None:
            continue
        rows = family_rows(result, data.plan)
        engine = (
            f"Axelrod's library (`axelrod.Tournament`, {TURNS} turns, the study's seed)"
            if result.engine == "axelrod"
            else f"fsmarena's engine: Axelrod's library is not installed (`{install_hint('axelrod', portable=True)}`), "
            "so this is a round robin against fsmarena's own classics and published machines, not Axelrod's field"
        )
        lines = [
            f"Every champion entered a tournament of {len(result.names)} players run by {engine}. "
            f"A family's score is the mean over its champions of their score per turn, with a 95% "
            f"Student-t interval over the replicates; ranks are among all {len(result.names)} entrants "
            f"(1 best, by median score). Harper et al.'s machines ({', '.join(HARPER)}) are measured in the same run.",
            "",
            "| entrant | family | champions | score per turn | 95% interval | median rank | best rank |",
            "|---|---|---|---|---|---|---|",
        ]
        table_rows = shown(rows)
        for row in table_rows:
            interval = f"[{_number(row['low'])}, {_number(row['high'])}]" if row["replicates"] > 1 else "–"
            name = f"**{row['group']}**" if row["family"] else row["group"]
            lines.append(
                f"| {name} | {'yes' if row['family'] else ''} | {row['replicates']} | {_number(row['score_per_turn'])} "
                f"| {interval} | {row['median_rank']:g} | {row['best_rank']} |"
            )
        if len(table_rows) < len(rows):
            lines.append(
                f"\nThe table shows the families, Harper et al.'s machines and the {TOP} best of the other "
                f"entrants; all {len(rows)} rows are in `axelrod_tournament.csv`."
            )
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, COLUMNS)
        writer.writeheader()
        writer.writerows({k: row[k] for k in COLUMNS} for row in rows)
        write_text(data.out / "axelrod_tournament.csv", buffer.getvalue())
        heading = "" if len(results.parts) == 1 else f"### {results.part_name(part)}\n\n"
        texts.append(heading + "\n".join(lines))
    return "## The Axelrod tournament\n\n" + "\n\n".join(texts) + "\n" if texts else ""


#: the section as the game's entry declares it (``GameEntry.report_sections``): before the cards
ENTRY = Entry("axelrod", f"{__name__}:section", "the Axelrod-tournament ranks table", before="cards")
