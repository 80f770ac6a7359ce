"""docs/limits.md's table "Options that do not apply" and the code agree, row by row: the test
reads the table, and for every option it lists asks the registries (what ``check_applies``
refuses with) which algorithms, genomes and protocols take it, the evolution settings which
options exact fitness refuses, and the schedules rule which schedules use a final value.  The
table once said ``--elite`` and ``--crossover-rate`` do not apply to ``score`` with
``--exact-fitness``, while the code took them (rightly: they breed the next generation)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fsmarena.errors import FsmarenaError
from fsmarena.evo.genome import GENOME_SETTINGS
from fsmarena.evo.protocols import protocol_settings
from fsmarena.evo.settings import EvolveConfig
from fsmarena.games import get_game
from fsmarena.options import MOVING_SCHEDULES
from fsmarena.rl import registry
from fsmarena.rl.config import TrainConfig

LIMITS = Path(__file__).resolve().parents[1] / "docs" / "limits.md"
#: the tables check_applies refuses with, by what they choose among
TABLES = {
    "algorithm": registry.settings("sample", "model"),
    "network": registry.settings("network"),
    "genome": GENOME_SETTINGS,
    "protocol": protocol_settings(),
}
KNOWN = {name for table in TABLES.values() for names in table.values() for name in names}


def _rows() -> list[tuple[list[str], str]]:
    """The table's rows: the settings of the first cell (``--epsilon*`` expanded) and the second cell."""
    section = LIMITS.read_text(encoding="utf-8").split("## Options that do not apply", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| `--"):
            continue
        first, second = (cell.strip() for cell in line.strip().strip("|").split("|", 1))
        names = []
        for flag in re.findall(r"`--([a-z-]+)(\*?)`", first):
            name = flag[0].replace("-", "_")
            names += sorted(n for n in KNOWN if n.startswith(name)) if flag[1] else [name]
        rows.append((names, second))
    assert len(rows) >= 9, "the table was not found"
    return rows


def _named(cell: str) -> set[str]:
    return {re.sub(r"^--(algo|genome) ", "", item) for item in re.findall(r"`([^`]+)`", cell)}


ROWS = _rows()


@pytest.mark.parametrize("names, cell", ROWS, ids=[",".join(names) for names, _ in ROWS])
def test_each_row_names_exactly_who_takes_its_options(names, cell):
    named = _named(cell)
    assert all(name in KNOWN for name in names), names
    for kind, table in TABLES.items():
        expected = named & set(table)
        for name in names:
            takers = {choice for choice, settings in table.items() if name in settings}
            if expected and (takers or not name.endswith("_final")):
                assert takers == expected, (name, kind, takers, expected)


@pytest.mark.parametrize("names, cell", [row for row in ROWS if "--exact-fitness" in row[1]])
def test_what_exact_fitness_refuses_is_what_the_table_says(names, cell):
    refused = "not `score` with `--exact-fitness`" in cell
    for name in names:
        config = EvolveConfig(genome="fsm", protocol="score", exact_fitness=True)
        if refused:
            with pytest.raises(FsmarenaError, match=f"--{name.replace('_', '-')}"):
                config.check_applies([name])
        else:
            config.check_applies([name])


def test_the_finals_row_names_the_schedules_that_use_a_final_value():
    ((names, cell),) = [row for row in ROWS if sorted(row[0]) == ["alpha_final", "epsilon_final"]]
    assert set(MOVING_SCHEDULES) <= _named(cell) and "constant" in _named(cell)
    game = get_game("dtd")
    for name in names:
        schedule = name.replace("_final", "_schedule")
        step = {"alpha": 0.1} if name == "alpha_final" else {}
        for kind in ("constant", *MOVING_SCHEDULES):
            config = TrainConfig(algo="q-learning", episodes=100, **step, **{schedule: kind, name: 0.05})
            if kind in MOVING_SCHEDULES:
                config.resolved(game, given=[name, schedule])
            else:
                with pytest.raises(FsmarenaError, match=f"--{name.replace('_', '-')} is only used by"):
                    config.resolved(game, given=[name, schedule])
