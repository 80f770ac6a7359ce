"""The report builders a study may name in its ``report`` field, besides the standard report.

Each builder belongs to the studies layer and writes the whole report; a game takes part only
through the hook its registry entry declares under the same name, which returns data
(:func:`fsmarena.studies.protocol.report_hook`).  A builder is called as
``builder(data, figures, command, wall_seconds)`` and returns the summary the command line prints.
"""

from __future__ import annotations

from typing import Any, Callable

from fsmarena.errors import FsmarenaError
from fsmarena.studies import exact_report
from fsmarena.studies.runner import StudyData

Builder = Callable[[StudyData, bool, str, "float | None"], dict[str, Any]]

#: report name -> builder (the reference value from a game's exact model: "exact-values")
BUILDERS: dict[str, Builder] = {"exact-values": exact_report.finish}


def report_builder(name: str) -> Builder:
    """The builder of report ``name``; one clear error for a name no builder has."""
    if name not in BUILDERS:
        raise FsmarenaError(f"unknown report '{name}' (known: {', '.join(sorted(BUILDERS))})")
    return BUILDERS[name]
