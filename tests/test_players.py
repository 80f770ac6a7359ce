"""Players: JSON round trips, validation of hostile files, stacks, the registry."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.arena import Seat, play_games
from fsmarena.games.players import (
    FixedActionPlayer,
    GroupedStack,
    RandomPlayer,
    TablePolicy,
    load_player,
    player_from_json,
    player_to_json,
    resolve_player,
    save_player,
)

GAME = get_game("dtd")


def test_builtins_resolve_by_name_and_round_trip_through_json(tmp_path):
    for name in ("random", "always-small", "always-median", "always-large"):
        player = resolve_player(name, GAME)
        path = tmp_path / f"{name}.json"
        save_player(player, GAME, path)
        data = json.loads(path.read_text())
        assert data["format_version"] == 1 and data["game"] == "dtd" and data["kind"]
        again = resolve_player(str(path), GAME)
        assert type(again) is type(player)
        assert again.label == player.label
        if isinstance(player, FixedActionPlayer):
            assert again.action == player.action


def test_table_policy_round_trip_plays_identically(tmp_path):
    table = np.random.default_rng(1).integers(0, 3, 40)
    policy = TablePolicy(table, label="t")
    save_player(policy, GAME, tmp_path / "t.json")
    loaded = load_player(tmp_path / "t.json", GAME)
    a = play_games(GAME, [policy, RandomPlayer()], 500, np.random.default_rng(7))
    b = play_games(GAME, [loaded, RandomPlayer()], 500, np.random.default_rng(7))
    assert np.array_equal(a.scores, b.scores)


def test_fixed_actions_play_their_action():
    seen = []

    class Spy(FixedActionPlayer):
        def act(self, obs, memory, rows, rng):
            actions = super().act(obs, memory, rows, rng)
            seen.append(actions)
            return actions

    play_games(GAME, [Spy(2, "large_max"), RandomPlayer()], 50, np.random.default_rng(0))
    assert np.all(np.concatenate(seen) == 2)


def test_stacked_table_policy_equals_separate_players():
    rng = np.random.default_rng(5)
    tables = rng.integers(0, 3, size=(3, 40))
    members = np.repeat(np.arange(3), 100)
    stacked = play_games(
        GAME, [Seat(TablePolicy(tables), members), FixedActionPlayer(1)], 300, np.random.default_rng(11)
    )

    # the same games one member at a time need the same random stream: deals are drawn in
    # lock-step for all rows, so compare with a grouped stack of separate (unmerged) players instead
    class Unstackable(TablePolicy):
        def stack_key(self):
            return None

    grouped = GroupedStack([Unstackable(t) for t in tables])
    assert len(grouped.groups) == 3
    mixed = play_games(GAME, [Seat(grouped, members), FixedActionPlayer(1)], 300, np.random.default_rng(11))
    assert np.array_equal(stacked.scores, mixed.scores)
    merged = GroupedStack([TablePolicy(t) for t in tables])
    assert len(merged.groups) == 1
    again = play_games(GAME, [Seat(merged, members), FixedActionPlayer(1)], 300, np.random.default_rng(11))
    assert np.array_equal(stacked.scores, again.scores)


@pytest.mark.parametrize(
    "data, message",
    [
        ([], "expected a JSON object"),
        ({"kind": "table-policy", "game": "dtd", "actions": [0] * 40}, "format_version"),
        (
            {"format_version": 99, "kind": "table-policy", "game": "dtd", "actions": [0] * 40},
            "unsupported format_version",
        ),
        ({"format_version": 1, "kind": "pickle", "game": "dtd"}, "unknown player kind"),
        ({"format_version": 1, "kind": "table-policy", "game": "421", "actions": [0] * 40}, "for the game '421'"),
        ({"format_version": 1, "kind": "table-policy", "game": "dtd", "actions": [0] * 39}, "shape"),
        ({"format_version": 1, "kind": "table-policy", "game": "dtd", "actions": [3] * 40}, r"\[0, 2\]"),
        ({"format_version": 1, "kind": "table-policy", "game": "dtd", "actions": [-1] * 40}, r"\[0, 2\]"),
        ({"format_version": 1, "kind": "table-policy", "game": "dtd", "actions": [0.5] * 40}, "integers"),
        ({"format_version": 1, "kind": "table-policy", "game": "dtd", "actions": "0" * 40}, "must be a list"),
        ({"format_version": 1, "kind": "table-policy", "game": "dtd", "actions": [[0]] * 40}, "shape"),
        ({"format_version": 1, "kind": "fixed-action", "game": "dtd", "action": "jump"}, "unknown action"),
        ({"format_version": True, "kind": "random", "game": "dtd"}, "boolean"),
    ],
)
def test_tampered_player_files_are_refused_clearly(data, message):
    with pytest.raises(FsmarenaError, match=message):
        player_from_json(data, GAME)


def test_malformed_files_are_refused_clearly(tmp_path):
    cases = {
        "syntax.json": "{not json",
        "nan.json": '{"format_version": 1, "kind": "table-policy", "game": "dtd", "actions": [NaN]}',
        "deep.json": "[" * 100_000 + "]" * 100_000,
        "empty.json": "",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(FsmarenaError, match=name):
            load_player(tmp_path / name, GAME)
    (tmp_path / "bytes.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(FsmarenaError, match="UTF-8"):
        load_player(tmp_path / "bytes.json", GAME)
    with pytest.raises(FsmarenaError, match="does not exist"):
        load_player(tmp_path / "missing.json", GAME)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=30,
)


@given(value=json_values, kind=st.sampled_from(["random", "fixed-action", "table-policy", "bda", "table-fsm"]))
def test_fuzzed_player_objects_never_crash(value, kind):
    """Any JSON structure is either a valid player or a clean FsmarenaError — never another error."""
    data = {"format_version": 1, "kind": kind, "game": "dtd"}
    if isinstance(value, dict):
        data.update(value)
    else:
        data["actions"] = value
        data["action"] = value
    try:
        player = player_from_json(data, GAME)
    except FsmarenaError:
        return
    assert player_to_json(player, GAME)["kind"] == kind


def test_unknown_player_name_lists_builtins():
    with pytest.raises(FsmarenaError, match="always-small"):
        resolve_player("always-huge", GAME)


def test_saved_files_get_the_usual_permissions(tmp_path):
    import os
    import stat

    save_player(RandomPlayer(), GAME, tmp_path / "r.json")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o666 & ~mask
