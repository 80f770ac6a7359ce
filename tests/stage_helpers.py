"""A stage written in the test folder, as a user of the library would write one: each family's
games consumed, summed over its champions (``tests/test_study_pipeline.py`` registers it)."""

from __future__ import annotations

from typing import Any

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields
from fsmarena.studies.protocol import Study
from fsmarena.studies.runner import StudyData
from fsmarena.studies.stage import Stage, StageContext


def check(study: Study) -> None:
    if not isinstance(study.options.get("games_label", "games"), str):
        raise FsmarenaError(f"{study.source}: 'games_label' must be a string")


def run(ctx: StageContext) -> dict[str, int]:
    ctx.log("games consumed: counting")
    return {c.name: sum(r.games for r in ctx.data.family(c.name)) for c in ctx.data.plan.competitors}


def to_json(result: dict[str, int], ctx: StageContext) -> dict[str, int]:
    return dict(result)


def read(raw: Any, source: str, ctx: StageContext) -> dict[str, int]:
    f = Fields(raw, source)
    names = [c.name for c in ctx.data.plan.competitors]
    if list(f.data) != names:
        raise f.fail("must hold one count per competitor")
    return {name: f.int_in(name, 0, 2**62) for name in names}


def two_seats(data: StudyData) -> bool:
    return data.game.n_seats == 2


STAGE = Stage("games-consumed", run, to_json, read, two_seats, check)


def replicates_section(results: Any, figures: bool) -> str:
    """A section written in the test folder: every part's replicate count, from the results alone."""
    counts = ", ".join(f"{len(data.records)}" for data in results.parts.values())
    return f"## Replicates at a glance\n\nReplicate tasks per part: {counts}.\n"
