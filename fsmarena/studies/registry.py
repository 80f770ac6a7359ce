"""The study registry: every stage a study can run after training and every report layout, declared once.

Like the learner registry (:mod:`fsmarena.rl.registry`), an entry names things only: the
``"module:attribute"`` of the object that *is* the stage or the report writer, and the study and
scale fields it reads.  A study file lists its stages (``stages = ["crossplay", "league"]``) and
names its report layout (``report = "player-counts"``); :mod:`fsmarena.studies.catalogue` reads the
fields these entries declare (unknown fields are refused) and resolves the targets.  Adding a
stage is its own module and one line of :data:`STAGES`.  A stage or a section only one game can
run is declared by that game's entry instead (``GameEntry.study_stages``, ``report_sections``),
and :func:`stages` and :func:`sections` add them to the generic ones.

This module imports nothing of the studies layer, so that the protocol and the catalogue can read
it without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

from fsmarena.errors import FsmarenaError
from fsmarena.games.registry import game_report_sections, game_study_stages, resolve


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
    #: a report layout's sections, in order, between its question and the sections of every report
    #: (names in :data:`SECTION_CATALOGUE`)
    sections: tuple[str, ...] = ()
    #: a section's arguments: the attributes of :class:`fsmarena.studies.report.Report` it reads
    reads: tuple[str, ...] = ()
    #: a game's section: the section of every report it comes before (after them all if "")
    before: str = ""


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
            "fsmarena.league.stage:STAGE",
            "every champion, builtin and the field against copies of each other, at the game's player count",
            ("reference",),
            ("league_games",),
        ),
        Entry(
            "exploitability",
            "fsmarena.exploitability.stage:STAGE",
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
        Entry("cards", "fsmarena.studies.stage_cards:STAGE", "each family's best champion: strategy card and one game"),
        Entry(
            "tuning",
            "fsmarena.tuning.stage:STAGE",
            "before training: each tuned family's settings searched with the same budget of games",
            ("tuning",),
            ("tuning_runs",),
        ),
    )
}


def _section(name: str, target: str, summary: str, reads: tuple[str, ...] = ("data", "analysis")) -> Entry:
    return Entry(name, target, summary, reads=reads)


#: every section a layout may list: ``module:function`` and the attributes of the report it reads
SECTION_CATALOGUE: dict[str, Entry] = {
    e.name: e
    for e in (
        _section("protocol", "fsmarena.studies.panel_report:protocol_section", "every parameter and seed"),
        _section("panel", "fsmarena.studies.panel_report:panel_section", "each family against the builtin panel"),
        _section("reliability", "fsmarena.studies.panel_report:reliability_section", "how reliable one run is"),
        _section(
            "reference", "fsmarena.studies.reference_line:reference_section", "the best known table policy", ("data",)
        ),
        _section(
            "crossplay", "fsmarena.studies.crossplay_report:crossplay_section", "every champion against every other"
        ),
        _section("tests", "fsmarena.studies.comparison_report:tests_section", "the tests", ("analysis", "questions")),
        _section("machines", "fsmarena.studies.machines:machines_section", "the policies and machines"),
        _section("conclusions", "fsmarena.studies.comparison_report:conclusions", "the conclusions in plain words"),
        _section("answer", "fsmarena.studies.target_report:answer", "the target question answered", ("report",)),
        _section("target-protocol", "fsmarena.studies.target_report:protocol", "confirmation and table", ("report",)),
        _section("evolution", "fsmarena.studies.target_report:evolution_section", "the evolution curves"),
        _section("automata", "fsmarena.studies.target_report:automata", "the best automata"),
        _section(
            "table", "fsmarena.studies.target_report:table_of_more_players", "a table of more players", ("report",)
        ),
        _section("exact-protocol", "fsmarena.studies.exact_report:protocol", "the exact protocol", ("report",)),
        _section("exact-results", "fsmarena.studies.exact_report:results", "exact values", ("report",)),
        _section("optimal-policy", "fsmarena.studies.exact_report:optimal_policy", "the optimum", ("report",)),
        _section("exact-conclusions", "fsmarena.studies.exact_report:conclusions", "conclusions", ("report",)),
        _section("sweep-protocol", "fsmarena.league.layout:protocol", "per part", ("report",)),
        _section("leagues", "fsmarena.league.layout:leagues", "a league per part", ("findings",)),
        _section("sweep-conclusions", "fsmarena.league.layout:conclusions", "", ("findings",)),
    )
}

STANDARD_SECTIONS = (
    "protocol",
    "panel",
    "reference",
    "crossplay",
    "reliability",
    "tests",
    "machines",
    "conclusions",
)

#: the report layouts: ``module:LAYOUT`` (a :class:`fsmarena.studies.report.Layout`) and the sections listed
REPORTS: dict[str, Entry] = {
    e.name: e
    for e in (
        Entry(
            "",
            "fsmarena.studies.standard_report:LAYOUT",
            "families against the panel, cross-play, tests, machines",
            keeps_measures=True,
            sections=STANDARD_SECTIONS,
        ),
        Entry(
            "exact-values",
            "fsmarena.studies.exact_report:LAYOUT",
            "exact values against the game's optimum",
            sections=("exact-protocol", "exact-results", "optimal-policy", "exact-conclusions"),
        ),
        Entry(
            "player-counts",
            "fsmarena.league.layout:LAYOUT",
            "a league per player count of a swept study, with exploitability where exact",
            sections=("sweep-protocol", "leagues", "sweep-conclusions"),
        ),
        Entry(
            "target",
            "fsmarena.studies.target_report:LAYOUT",
            "a target win rate against a reference, confirmation games and a table of more players",
            keeps_measures=True,
            sections=(
                "answer",
                "protocol",
                "target-protocol",
                "panel",
                "evolution",
                "crossplay",
                "reliability",
                "tests",
                "automata",
                "table",
                "conclusions",
            ),
        ),
    )
}


#: sections every report writes, in order, after its layout's sections and before its compute and
#: reproduce sections: ``module:function`` of ``section(results, figures) -> str`` (Markdown; ""
#: leaves it out of a study it does not apply to). Adding a section to every report is its own
#: module and one line here.
SECTIONS: dict[str, Entry] = {
    e.name: e
    for e in (
        Entry(
            "sample-efficiency",
            "fsmarena.studies.sample_efficiency:section",
            "every family against games consumed, and at each configured budget",
        ),
        Entry("tuning", "fsmarena.tuning.report:section", "what each tuned family chose, at what cost"),
        Entry("questions", "fsmarena.studies.question_answers:section", "every declared question answered"),
        Entry("seeds", "fsmarena.studies.seeds_section:section", "what the seed reports, its settings, agreement"),
        Entry("cards", "fsmarena.studies.cards_section:cards_section", "each family's best champion: card and game"),
    )
}


def stages() -> dict[str, Entry]:
    """Every stage a study may list: the generic ones, then those the games declare."""
    return {**STAGES, **_games_entries(game_study_stages(), "stage")}


def sections() -> dict[str, Entry]:
    """The sections every report writes, in order: the generic ones, each game's placed before
    the section its entry names (``before``), after them all without one."""
    ordered = dict(SECTIONS)
    for name, entry in _games_entries(game_report_sections(), "section").items():
        names = list(ordered)
        at = names.index(entry.before) if entry.before in ordered else len(names)
        ordered = {n: ordered[n] for n in names[:at]} | {name: entry} | {n: ordered[n] for n in names[at:]}
    return ordered


def _games_entries(declared: dict[str, str], what: str) -> dict[str, Entry]:
    """The entries the games declare (``name -> "module:ENTRY"``), each named as declared."""
    found = {name: resolve(target, f"{what} '{name}'") for name, target in declared.items()}
    for name, entry in found.items():
        assert isinstance(entry, Entry) and entry.name == name, f"{what} '{name}' is not an Entry of that name"
    return found


def stage_entry(name: str) -> Entry:
    """The stage ``name``; one clear error naming the known stages otherwise."""
    known = stages()
    if name not in known:
        raise FsmarenaError(f"unknown stage '{name}' (known: {', '.join(known)})")
    return known[name]


def report_entry(name: str) -> Entry:
    """The report layout ``name`` ("" is the standard report)."""
    if name not in REPORTS:
        raise FsmarenaError(f"unknown report '{name}' (known: {', '.join(n for n in REPORTS if n)})")
    return REPORTS[name]
