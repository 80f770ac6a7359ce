"""The study registry: every stage a study can run after training and every report layout, declared once.

Like the learner registry (:mod:`fsmarena.rl.registry`), an entry names things only: the
``"module:attribute"`` of the object that *is* the stage or the report writer, and the study and
scale fields it reads.  A study file lists its stages (``stages = ["crossplay", "league"]``) and
names its report layout (``report = "player-counts"``); :mod:`fsmarena.studies.catalogue` reads the
fields these entries declare (unknown fields are refused) and resolves the targets.  Adding a
stage is its own module and one line of :data:`STAGES`.

This module imports nothing of the studies layer, so that the protocol and the catalogue can read
it without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

from fsmarena.errors import FsmarenaError


@dataclass(frozen=True)
class Entry:
    """One stage or report layout: its name, its target (``module:attribute``: a
    :class:`fsmarena.studies.stage.Stage`, or a report writer ``write(results, out, figures) ->
    summary``), the study fields and per-scale fields it reads, and its line in the docs."""

    name: str
    target: str
    summary: str
    study_fields: tuple[str, ...] = ()
    scale_fields: tuple[str, ...] = ()
    #: a report layout that reads what a store keeps of the measures that play the players
    #: (machine sizes, fingerprints, best-known lines: :mod:`fsmarena.studies.kept_measures`)
    keeps_measures: bool = False


STAGES: dict[str, Entry] = {
    e.name: e
    for e in (
        Entry(
            "crossplay",
            "fsmarena.studies.stage_crossplay:STAGE",
            "every champion against every other (two-seat games)",
        ),
        Entry(
            "league",
            "fsmarena.studies.stage_league:STAGE",
            "every champion, builtin and the field against copies of each other, at the game's player count",
            ("reference",),
            ("league_games",),
        ),
        Entry(
            "exploitability",
            "fsmarena.studies.stage_exploitability:STAGE",
            "every champion's and builtin's exact exploitability (solvable zero-sum games)",
        ),
        Entry(
            "confirm",
            "fsmarena.studies.stage_confirm:STAGE",
            "each family's best champion against the reference on fresh games (the target question)",
            ("target", "reference", "reference_result", "reference_result_label"),
            ("confirm_games",),
        ),
        Entry(
            "table",
            "fsmarena.studies.stage_table:STAGE",
            "every champion at a table of more players against fixed builtins",
            ("table_players", "table_opponents", "table_references"),
            ("table_games",),
        ),
    )
}

REPORTS: dict[str, Entry] = {
    e.name: e
    for e in (
        Entry(
            "",
            "fsmarena.studies.report:standard_report",
            "families against the panel, cross-play, tests, machines",
            keeps_measures=True,
        ),
        Entry("exact-values", "fsmarena.studies.exact_report:finish", "exact values against the game's optimum"),
        Entry(
            "player-counts",
            "fsmarena.studies.player_counts_report:write",
            "a league per player count of a swept study, with exploitability where exact",
        ),
        Entry(
            "target",
            "fsmarena.studies.target_report:write",
            "a target win rate against a reference, confirmation games and a table of more players",
            keeps_measures=True,
        ),
    )
}


#: sections every report layout writes, in order, after its own findings and before its compute and
#: reproduce sections: ``module:function`` of ``section(results, figures) -> str`` (Markdown; ""
#: leaves it out of a study it does not apply to). Adding a section to every report is its own
#: module and one line here (:mod:`fsmarena.studies.sections`).
SECTIONS: dict[str, Entry] = {
    "seeds": Entry("seeds", "fsmarena.studies.seeds_section:section", "what the seed reports, its settings, agreement"),
}


def stage_entry(name: str) -> Entry:
    """The stage ``name``; one clear error naming the known stages otherwise."""
    if name not in STAGES:
        raise FsmarenaError(f"unknown stage '{name}' (known: {', '.join(STAGES)})")
    return STAGES[name]


def report_entry(name: str) -> Entry:
    """The report layout ``name`` ("" is the standard report)."""
    if name not in REPORTS:
        raise FsmarenaError(f"unknown report '{name}' (known: {', '.join(n for n in REPORTS if n)})")
    return REPORTS[name]
