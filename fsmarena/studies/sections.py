"""The sections every study's report holds, whatever its layout: written once, listed once.

A report layout (:data:`fsmarena.studies.registry.REPORTS`) writes its own findings, then every
section of :data:`fsmarena.studies.registry.SECTIONS`, in order, then its compute and reproduce
sections.  A section is one function of the run's results,
``section(results, figures) -> str`` (Markdown, starting with its ``##`` heading; "" where it does
not apply), in a module of its own; its tables and figures go to ``results.out``.
"""

from __future__ import annotations

from fsmarena.games.registry import resolve
from fsmarena.studies.registry import SECTIONS
from fsmarena.studies.results import StudyResults


def shared_sections(results: StudyResults, figures: bool) -> str:
    """Every registered section's text for ``results``, in registry order ("" when none applies)."""
    texts = [resolve(entry.target, f"section '{name}'")(results, figures) for name, entry in SECTIONS.items()]
    return "\n".join(text.rstrip() + "\n" for text in texts if text)
