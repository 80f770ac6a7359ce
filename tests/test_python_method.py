"""The ``python`` study method: an outside ``make_player(game)`` named in a study file becomes a
competitor; a missing module or attribute, or a factory returning something else, is one clear error."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.players import TablePolicy
from fsmarena.methods.base import MethodContext, check_method, get_method, planned_games


@pytest.fixture
def outside_module(monkeypatch):
    module = types.ModuleType("outside_for_test")
    module.make_player = lambda game: TablePolicy(np.zeros(game.n_states, dtype=np.int64))
    module.make_wrong = lambda game: "not a player"
    monkeypatch.setitem(sys.modules, "outside_for_test", module)
    return module


def _ctx(entry: str) -> MethodContext:
    return MethodContext(get_game("dtd"), {"entry": entry}, 0, "outside")


def test_python_method_makes_the_named_player(outside_module, capsys):
    trained = get_method("python")(_ctx("outside_for_test:make_player"))
    assert isinstance(trained.player, TablePolicy) and trained.player.label == "outside"
    assert trained.games == 0 == planned_games("python", {"entry": "outside_for_test:make_player"}, get_game("dtd"))
    assert "runs outside code" in capsys.readouterr().err


@pytest.mark.parametrize(
    "entry, message",
    [
        ("no_such_module_xyz:make", "cannot import"),
        ("outside_for_test:absent", "has no function"),
        ("outside_for_test:make_wrong", "not an fsmarena Player"),
    ],
)
def test_python_method_refuses_bad_entries_in_one_line(outside_module, entry, message):
    with pytest.raises(FsmarenaError, match=message) as info:
        get_method("python")(_ctx(entry))
    assert "\n" not in str(info.value)


def test_python_method_checks_the_entry_form():
    with pytest.raises(FsmarenaError, match="package.module:function"):
        check_method("python", _ctx("just_a_module"))
