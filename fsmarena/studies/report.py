"""The one report writer: every study's ``DIR/report.md`` is a list of registered sections.

A study's report layout (:data:`fsmarena.studies.registry.REPORTS`, chosen by its ``report``
field) is a :class:`Layout`: what it computes once from the results (its tables, CSV files and
figures: ``prepare``), the sections it lists, what its summary holds, and the lines of its
"Files" section.  Every report is written the same way::

    report = Report(results, figures, *layout.prepare(results, figures))
    text   = title + question + [section(report) for section in layout's sections]
             + [section(results, figures) for section in sections()]    # every study's report
             + compute + reproduce
    write DIR/report.md; return layout.summary(report)

A section is one registered function (:data:`fsmarena.studies.registry.SECTION_CATALOGUE`)
that reads the attributes of :class:`Report` its entry names (``data``, ``analysis``,
``findings``...) and returns Markdown starting with its heading ("" where it does not apply).
Title, question, compute and reproduce are written here, once, for every layout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from fsmarena.fileio import write_text
from fsmarena.games.registry import resolve
from fsmarena.studies.analysis import Analysis
from fsmarena.studies.protocol import Study
from fsmarena.studies.provenance import compute_section, reproduce_section, written_by
from fsmarena.studies.registry import SECTION_CATALOGUE, Entry, report_entry, sections
from fsmarena.studies.runner import StudyData
from fsmarena.studies.sample_efficiency import level_summary

if TYPE_CHECKING:  # annotations only: the results object writes its report with this module
    from fsmarena.studies.results import StudyResults


@dataclass
class Report:
    """One report being written: the results, whether figures are drawn, and what the layout
    computed of them once (``analysis``: the generic tables of a one-part study, None for a
    layout without them; ``findings``: the layout's own tables)."""

    results: StudyResults
    figures: bool
    analysis: Analysis | None = None
    findings: Any = None
    #: ``DIR/report.md``
    path: Path = field(init=False)

    def __post_init__(self) -> None:
        assert self.results.out is not None, "a report needs its results' folder"
        self.path = self.results.out / "report.md"

    @property
    def data(self) -> StudyData:
        """The first part's data: the study's data for a study without a sweep."""
        return next(iter(self.results.parts.values()))

    @property
    def study(self) -> Study:
        return self.results.study

    @property
    def out(self) -> Path:
        assert self.results.out is not None
        return self.results.out

    @property
    def questions(self) -> tuple[tuple[str, str], ...]:
        """The family comparisons the study declares."""
        return self.study.questions

    @property
    def report(self) -> "Report":
        """The report itself, for a section that reads several of its parts."""
        return self


@dataclass(frozen=True)
class Layout:
    """A report layout: ``prepare(results, figures) -> (analysis, findings)`` computes its tables
    (writing ``tables/*.csv`` and, with figures, ``figures/``), ``summary(report)`` is what the
    command prints and a page quotes (``lines``, rows keyed by competitor), ``files(report)`` the
    bullets of its "Files" section; ``kept`` says what a re-run keeps, ``packages`` which
    packages beyond the usual the results depend on, and ``check(study)`` refuses, when the study
    is read, a study this layout cannot report on."""

    prepare: Callable[[StudyResults, bool], tuple[Analysis | None, Any]]
    summary: Callable[[Report], dict[str, Any]]
    files: Callable[[Report], Sequence[str]]
    kept: str = "finished replicates are kept"
    packages: tuple[str, ...] = ()
    check: Callable[[Study], None] = lambda study: None


def write_report(results: StudyResults, figures: bool = True) -> dict[str, Any]:
    """Write the report of ``results`` by its study's layout into ``results.out`` (module
    docstring); returns the layout's summary, with the report's path as ``report``."""
    entry = report_entry(results.study.report)
    layout: Layout = resolve(entry.target, f"report '{results.study.report}'")
    report = Report(results, figures, *layout.prepare(results, figures))
    texts = [title_section(report), question_section(report)]
    texts += [section_text(name, report) for name in entry.sections]
    texts += [resolve(e.target, f"section '{name}'")(results, figures) for name, e in sections().items()]
    texts += [
        compute_section(results),
        reproduce_section(results, layout.files(report), layout.kept, layout.packages),
    ]
    body = "\n".join(text for text in texts if text) + "\n"
    write_text(report.path, re.sub(r"\n{3,}", "\n\n", body))
    summary = layout.summary(report)
    at_levels = level_summary(results)
    lines = summary.get("lines", [])
    return {
        "report": str(report.path),
        **summary,
        "levels": at_levels["levels"],
        "lines": lines + at_levels["level_lines"],
    }


def section_text(name: str, report: Report) -> str:
    """Section ``name`` of the catalogue, called with the attributes of ``report`` it reads."""
    entry: Entry = SECTION_CATALOGUE[name]
    function = resolve(entry.target, f"section '{name}'")
    return function(*(getattr(report, attribute) for attribute in entry.reads))


def title_section(report: Report) -> str:
    """The title and the line naming the study, its version, scale and the fsmarena that wrote it."""
    study = report.study
    return (
        f"# {study.title}\n\nStudy `{study.name}` (version {study.version}), scale `{report.results.scale}`, "
        f"written by fsmarena {written_by(report.data)}.\n"
    )


def question_section(report: Report) -> str:
    """The study's question, as it declares it."""
    return "## Question\n\n" + report.study.question.strip() + "\n"
