"""The iterated prisoner's dilemma: everything about it lives in this folder.

``kernel`` (the rules and the classic strategies, compiled), ``game`` (configuration, labels,
builtins), ``machines`` (the published finite-state machines as table FSMs), ``reference`` (the
plain loop the tests compare with), ``expectations`` (what the contract tests must find),
``bridge`` (Axelrod's library: its players from fsmarena's machines and back, its matches),
``probes`` (Ashlock's fingerprint probes), ``axelrod_stage`` and ``axelrod_section`` (the study
stage that ranks every champion in Axelrod's own tournament, and its report section) and
``rules.md`` (its rules page).
"""

from fsmarena.games.registry import GameEntry

ENTRY = GameEntry(
    name="ipd",
    game=f"{__name__}.game:IteratedPrisonersDilemma",
    kernel=f"{__name__}.kernel",
    probes=("tit-for-tat", "cooperator", "defector"),  # the generic mixtures; Ashlock's: .probes
    exports={"axelrod": f"{__name__}.bridge:export_axelrod"},
    study_stages={"axelrod": f"{__name__}.axelrod_stage:ENTRY"},
    report_sections={"axelrod": f"{__name__}.axelrod_section:ENTRY"},
    studies={"ipd": "ipd.toml"},
    expectations=f"{__name__}.expectations:EXPECTED",
)
