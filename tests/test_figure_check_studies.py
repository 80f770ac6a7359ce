"""Every figure of every study at the test scale passes the figure check (:mod:`fsmarena.figures.check`):
no formula markup drawn literally (the log axes' old ``$\\mathdefault{10^{3}}$``), no overlapping
texts or tick labels, no text off the canvas.

The session's test-scale runs (``vautour``, ``vautour-small``, ``thirtyone``: tests/conftest.py)
are resumed on a copy with figures, every figure checked as it is saved and none written, so
they cost the figures' making only (6, 3 and 11 CPU-seconds: the machine drawings and
fingerprints play games; all three among the slow tests); the studies no session builds
(``dtd-thesis``, ``goofspiel``, ``421``) are run whole, in the slow tests.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_helpers import cli

from fsmarena.figures.style import checking

#: the figures each study draws at the test scale (a check that saw none would pass on nothing)
STANDARD = {"crossplay_heatmap", "crossplay_spread", "fingerprints", "learning_curves", "panel_outcomes", "reliability"}
PER_PLAYER_COUNT = {
    "best_bda",
    "best_fsm",
    "champions_vs_builtins",
    "curves_evolve",
    "curves_train",
    "generalisation",
    "league_heatmap",
    "reliability",
}
EXPECTED = {
    "vautour": {f"{name}_{n}p" for name in PER_PLAYER_COUNT for n in (2, 3)},
    "vautour-small": {f"{name}_2p" for name in PER_PLAYER_COUNT | {"exploitability", "exploitability_curve"}},
    "thirtyone": STANDARD
    | {"best_bda", "best_bda-rr", "best_fsm", "best_fsm-rr", "evolution_curves", "table", "versus_reference"},
    "dtd-thesis": STANDARD | {"best_bda", "best_fsm", "policy_map"},
    "goofspiel": STANDARD | {"best_bda", "best_fsm"},
    "421": {"final_values", "learning_curves", "optimal_policy", "reliability"},
}


def checked_figures(study: str, out: Path) -> list[str]:
    """Run (or resume) ``study`` at the test scale in ``out`` with figures, each checked and
    none written; fails on any defect, listing them all.  Returns the figures' names."""
    with checking(write=False) as checks:
        code, _ = cli("study", study, "--scale", "test", "--out", out, "--quiet")
    assert code == 0
    assert checks.defects == [], "\n".join(checks.defects)
    names = [path.name for path in checks.checked]
    assert EXPECTED[study] <= set(names), names
    return names


@pytest.mark.parametrize(
    "fixture", [pytest.param(f, marks=pytest.mark.slow) for f in ("vautour_run", "vautour_small_run", "thirtyone_run")]
)
def test_every_figure_of_a_session_study_passes_the_check(fixture, request, tmp_path):
    folder, summary = request.getfixturevalue(fixture)
    study = {"vautour_run": "vautour", "vautour_small_run": "vautour-small", "thirtyone_run": "thirtyone"}[fixture]
    copy = Path(shutil.copytree(folder, tmp_path / "study"))  # the session's run is shared: never changed
    checked_figures(study, copy)
    assert not (copy / "figures").exists() or not any((copy / "figures").iterdir())  # checked, not written


@pytest.mark.slow
@pytest.mark.parametrize("study", ["dtd-thesis", "goofspiel", "421"])
def test_every_figure_of_a_study_passes_the_check(study, tmp_path):
    checked_figures(study, tmp_path / "study")
