"""What a study runs after training: a stage, one measure of the finished champions.

A stage (cross-play, a league, exploitability, confirmation matches, a table of more players) is
one module holding one :class:`Stage`, named in the registry (:mod:`fsmarena.studies.registry`) and
listed by a study in its ``stages``.  For every part of a study (:meth:`Study.parts`) the pipeline
(:mod:`fsmarena.studies.pipeline`) runs each listed stage that :attr:`Stage.applies` to the part's
data, after every replicate is trained::

    for stage in study.stages:
        if stage.applies(data):
            data.stages[stage.name] = stage.run(context)   # cached in <part>/raw/, reused on a re-run

A stage may also act *before* training (:attr:`Stage.prepare`): the tuning stage searches each
tuned family's settings there and hands the part's replicates the plan with the chosen ones.

A stage serialises its own result (:attr:`Stage.to_json`) and validates it when a published store
is read (:attr:`Stage.read`, one clear error for a damaged one), so the one store
(:mod:`fsmarena.studies.store`) keeps every stage without knowing any.  Its settings are fields of the
study and of each scale that the registry declares for it; :attr:`Stage.check` refuses bad ones
before anything runs.  A stage that compares families (:attr:`Stage.compares`) also runs at a scale's
smaller budget levels.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from fsmarena.studies.protocol import Plan, Study
from fsmarena.studies.runner import StudyData


@dataclass(frozen=True)
class StageContext:
    """What a stage sees: the whole study (its options), the scale run, the part's data
    (``data.out`` is the part's folder, ``data.stages`` the stages already run) and how to run."""

    study: Study
    scale: str
    data: StudyData
    jobs: int = 1
    log: Callable[[str], None] = lambda message: None


@dataclass(frozen=True)
class PrepareContext:
    """What a stage's :attr:`Stage.prepare` sees, before a part's replicates train: the study, the
    scale, the part's plan and folder; ``run`` is False when a finished run is read back (the
    stage then only reads what it wrote)."""

    study: Study
    scale: str
    plan: Plan
    out: Path
    jobs: int = 1
    log: Callable[[str], None] = lambda message: None
    run: bool = True


def _always(data: StudyData) -> bool:
    return True


def _nothing_to_check(study: Study) -> None:
    return None


@dataclass(frozen=True)
class Stage:
    """One stage: ``run(context) -> result`` (reusing its cached raw file when it is this very
    run's), ``to_json(result, context)``, ``read(raw, source, context) -> result`` (validated
    against the part's plan), ``applies(data)`` and ``check(study)`` (its settings, before
    anything runs)."""

    name: str
    run: Callable[[StageContext], Any]
    to_json: Callable[[Any, StageContext], Any]
    read: Callable[[Any, str, StageContext], Any]
    applies: Callable[[StudyData], bool] = _always
    check: Callable[[Study], None] = _nothing_to_check
    #: whether the stage compares the families with one another (cross-play, a league): run at
    #: every budget level of a scale, where the others run at its top level only
    compares: bool = False
    #: what the stage does before training, if anything: ``prepare(context) -> plan``, the plan
    #: the part's replicates train with (the tuning stage sets the tuned families' settings)
    prepare: Callable[[PrepareContext], Plan] | None = None
