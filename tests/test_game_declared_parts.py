"""A stage or a report section only one game can run is declared by that game's entry.

The iterated prisoner's dilemma declares its Axelrod-tournament stage and section
(``GameEntry.study_stages``, ``report_sections``); the studies layer adds them to its own, a
section at the place its entry names, and never names the game or its modules.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fsmarena.errors import FsmarenaError
from fsmarena.games import registry as games_registry
from fsmarena.games.ipd.axelrod_stage import STAGE
from fsmarena.studies import registry
from fsmarena.studies.catalogue import stage, study_from_data
from fsmarena.studies.registry import Entry, sections, stage_entry, stages

ROOT = Path(__file__).resolve().parents[1]


def test_the_axelrod_stage_and_section_come_from_the_game_not_the_studies_layer():
    assert "axelrod" not in registry.STAGES and "axelrod" not in registry.SECTIONS
    assert stage_entry("axelrod").target == "fsmarena.games.ipd.axelrod_stage:STAGE"
    assert stage("axelrod") is STAGE
    assert list(sections()).index("axelrod") == list(sections()).index("cards") - 1  # before="cards"
    generic = (ROOT / "fsmarena" / "studies").rglob("*.py")
    assert not [p.name for p in generic if "games.ipd" in p.read_text() or "axelrod" in p.read_text().lower()]


@pytest.mark.parametrize(("before", "expected"), [("questions", 2), ("", 5), ("no-such-section", 5)])
def test_a_game_section_goes_before_the_one_it_names_or_last(monkeypatch, before, expected):
    extra = Entry("extra", "tests.stage_helpers:replicates_section", "a game's section", before=before)
    monkeypatch.setattr(
        registry, "_games_entries", lambda declared, what: {"extra": extra} if what == "section" else {}
    )
    names = list(sections())
    assert names.index("extra") == expected and len(names) == len(registry.SECTIONS) + 1


def test_a_game_stage_is_listed_and_its_fields_read_only_where_it_is_listed(monkeypatch):
    """A dtd study may not set the Axelrod stage's scale fields without listing the stage; the
    error names the game-declared stage like a generic one."""
    data = {
        "name": "x",
        "title": "x",
        "version": 1,
        "question": "x",
        "game": "dtd",
        "seed": 1,
        "panel": ["random"],
        "competitors": [{"name": "r", "method": "builtin", "params": {"player": "random"}}],
        "scales": {"test": {"replicates": 1, "panel_games": 10, "axelrod_repetitions": 2}},
        "stages": [],
    }
    with pytest.raises(FsmarenaError, match="is a setting of stage 'axelrod'"):
        study_from_data(data, "study x")
    assert "axelrod" in stages() and "axelrod" in games_registry.game_study_stages()
