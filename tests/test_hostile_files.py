"""Hostile files against the command line: files that are not regular files (FIFOs, devices,
``/proc``, folders), huge and deeply nested JSON and TOML, numbers out of range (hypothesis),
evolution checkpoints and player tables that lie about their meaning, games counted in bounded
memory whatever their number.

Every case ends as the README promises (:mod:`hostile_helpers` says how).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run_cli
from hostile_helpers import (
    EVOLVE,
    EVOLVE_BASE,
    FSMARENA,
    RESUME,
    TRAIN,
    assert_one_clear_line,
    files,
    hostile,
    json_trees,
    limit_memory,
    run_bounded,
)
from hypothesis import given
from hypothesis import strategies as st

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import loads, nesting_depth

# ---- files that are not regular files -------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("special", ["/dev/zero", "/proc/self/status", "FIFO", "FOLDER"])
def test_player_files_that_are_not_regular_files_are_refused_at_once(tmp_path, special):
    """``/dev/zero`` would be read forever, opening a FIFO would block forever."""
    path = Path(special)
    if special == "FIFO":
        path = tmp_path / "p.json"
        os.mkfifo(path)
    elif special == "FOLDER":
        path = tmp_path
    start = time.monotonic()
    done = run_bounded(["play", "dtd", path, "random", "--games", "10"], tmp_path, timeout=60)
    assert_one_clear_line(done.returncode, done.stderr)
    assert "regular file" in done.stderr or "folder" in done.stderr
    assert time.monotonic() - start < 60


def test_a_fifo_as_study_definition_or_checkpoint_does_not_block(tmp_path, capsys):
    fifo = tmp_path / "s.toml"
    os.mkfifo(fifo)
    code, _, err = run_cli(capsys, "study", fifo, "--out", tmp_path / "out")
    assert_one_clear_line(code, err)
    assert not (tmp_path / "out").exists()
    run_dir = tmp_path / "rl"
    run_dir.mkdir()
    os.mkfifo(run_dir / "checkpoint.npz")
    code, _, err = run_cli(capsys, *TRAIN, "--resume", "--out", run_dir)
    assert_one_clear_line(code, err)
    assert "regular file" in err


def test_reads_stop_at_the_limit_whatever_the_size_claims(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(limits, "MAX_JSON_BYTES", 1000)
    monkeypatch.setattr("fsmarena.fileio.limits.MAX_JSON_BYTES", 1000)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"label": "x" * 5000}))
    code, _, err = run_cli(capsys, "play", "dtd", big, "random", "--games", "10")
    assert_one_clear_line(code, err)
    assert "too large" in err and "1000" in err


@pytest.mark.parametrize("kind", ["FIFO", "FOLDER", "THROUGH_A_FILE"])
def test_outputs_never_replace_what_is_not_a_regular_file(tmp_path, capsys, kind):
    """Writing renames a temporary file over the target: over a FIFO or a device node that
    would destroy it (as root, ``--out /dev/full`` replaced the device)."""
    target = tmp_path / "solution.json"
    if kind == "FIFO":
        os.mkfifo(target)
    elif kind == "FOLDER":
        target.mkdir()
    else:
        (tmp_path / "afile").write_text("keep")
        target = tmp_path / "afile" / "solution.json"
    code, _, err = run_cli(capsys, "solve", "vautour", "--param", "cards=3", "--out", target)
    assert_one_clear_line(code, err)
    expected = {"FIFO": "not a regular file", "FOLDER": "is a folder", "THROUGH_A_FILE": "afile is not a folder"}
    assert expected[kind] in err
    if kind == "FIFO":
        assert target.is_fifo()
    assert [p.name for p in tmp_path.iterdir()] == ["afile" if kind == "THROUGH_A_FILE" else "solution.json"]


# ---- JSON and TOML content ------------------------------------------------------------------


def test_many_small_arrays_are_refused_before_parsing(monkeypatch):
    monkeypatch.setattr(limits, "MAX_JSON_CONTAINERS", 10)
    assert loads("[" + ",".join(["[1]"] * 9) + "]") == [[1]] * 9
    with pytest.raises(FsmarenaError, match="holds 11 arrays and objects; the limit is 10 .MAX_JSON_CONTAINERS."):
        loads("[" + ",".join(["[1]"] * 10) + "]")


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["arrays", "floats"])
def test_a_file_near_the_size_limit_parses_in_bounded_time_and_memory(tmp_path, shape):
    """45 MB of ``[1],`` used to inflate to 2.7 GB of Python lists; floats stay far below."""
    path = tmp_path / "big.json"
    if shape == "arrays":
        path.write_text("[" + ",".join(["[1]"] * 15_000_000) + "]")
    else:
        body = ",".join(["0.123456"] * 7_000_000)
        path.write_text(f'{{"format_version": 1, "kind": "random", "game": "dtd", "x": [{body}]}}')
    # bounded in CPU time, which a loaded machine does not stretch (the wall limit only guards)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = run_bounded(["play", "dtd", path, "random", "--games", "10"], tmp_path, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) < 60
    if shape == "arrays":
        assert_one_clear_line(done.returncode, done.stderr)
        assert "MAX_JSON_CONTAINERS" in done.stderr
    else:
        assert done.returncode == 0, done.stderr


#: reads a JSON file as every reader does; exit 2 for a refusal, 0 if read (then the peak memory)
_READ_JSON = """
import resource, sys
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import read_json
try:
    read_json(sys.argv[1], "player file")
except FsmarenaError as exc:
    print(exc, file=sys.stderr)
    sys.exit(2)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""
#: address space for reading one JSON file: its text twice (bytes, then a str of up to 4 bytes a
#: character) and MAX_JSON_PARSED_BYTES of values; 60 MB of short strings needed 1.2 GB
JSON_MEMORY_LIMIT = 900 * 1024**2


def _limit_json_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (JSON_MEMORY_LIMIT, JSON_MEMORY_LIMIT))


@pytest.mark.parametrize(
    "item, words",
    [
        pytest.param('"a"', "MAX_JSON_PARSED_BYTES", id="short-strings-and-an-emoji"),
        pytest.param('"\u00e9"', "MAX_JSON_PARSED_BYTES", id="accented-strings"),
        pytest.param("1.5", "MAX_JSON_PARSED_BYTES", id="floats", marks=pytest.mark.slow),
        pytest.param("1000", "MAX_JSON_PARSED_BYTES", id="integers", marks=pytest.mark.slow),
        pytest.param("[]", "MAX_JSON_CONTAINERS", id="empty-arrays"),
    ],
)
def test_a_json_file_of_many_small_values_is_refused_in_bounded_memory(tmp_path, item, words):
    """The container limit bounded arrays and objects, not scalars: 60 MB of short strings took
    about 1.0 GB to refuse (1.2 GB with one emoji, which makes the whole text 4 bytes a
    character).  Refused here under an address-space limit, which a MemoryError would fail."""
    path = tmp_path / "many.json"
    body = ",".join([item] * (60_000_000 // (len(item.encode()) + 1)))
    path.write_text(f'{{"format_version": 1, "kind": "table-fsm", "label": "\U0001f600", "x": [{body}]}}')
    done = subprocess.run(
        [sys.executable, "-P", "-c", _READ_JSON, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limit_json_memory,
    )
    assert done.returncode == 2, done.stderr
    assert words in done.stderr and "Traceback" not in done.stderr


@hostile
@given(
    number=st.sampled_from(["1e400", "-1e400", "NaN", "Infinity", "-Infinity"])
    | st.integers(min_value=10**limits.MAX_JSON_INT_DIGITS).map(str)
    | st.integers(max_value=-(10**limits.MAX_JSON_INT_DIGITS)).map(str)
)
def test_numbers_out_of_range_are_refused_by_the_parser(number):
    with pytest.raises(FsmarenaError, match="not allowed|out of range|digits"):
        loads(f'{{"a": [1, {number}]}}', "player file x")


def _nested(depth: int, opening: str) -> str:
    """JSON text nesting ``depth`` arrays or objects."""
    if opening == "{":
        return '{"k":' * (depth - 1) + '{"k": 1' + "}" * depth
    return "[" * depth + "1" + "]" * depth


@hostile
@given(depth=st.integers(limits.MAX_NESTING + 1, 200_000), opening=st.sampled_from(["[", "{"]))
def test_deep_nesting_is_one_clear_error_at_any_depth(depth, opening):
    """Below the interpreter's recursion limit the depth check refuses it, above it the parser's
    own clean RecursionError does: the same error either way."""
    with pytest.raises(FsmarenaError, match=f"nested too deeply \\(the limit is {limits.MAX_NESTING} levels"):
        loads(_nested(depth, opening))


def _recursive_depth(value) -> int:
    """The oracle: nesting depth by plain recursion."""
    if isinstance(value, dict):
        return 1 + max(map(_recursive_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_recursive_depth, value), default=0)
    return 0


@hostile
@given(value=json_trees)
def test_nesting_depth_agrees_with_plain_recursion_and_limit(value):
    assert nesting_depth(value) == _recursive_depth(value)
    if nesting_depth(value) <= limits.MAX_NESTING:
        assert loads(json.dumps(value)) == value  # brackets inside strings are text, not nesting


@pytest.mark.parametrize("depth", [limits.MAX_NESTING, limits.MAX_NESTING + 1])
def test_the_nesting_limit_is_exact(depth):
    text = _nested(depth, "[")
    if depth <= limits.MAX_NESTING:
        assert nesting_depth(loads(text)) == depth
    else:
        with pytest.raises(FsmarenaError, match="nested too deeply"):
            loads(text)


@pytest.mark.parametrize("number", ["1e400", "1" + "0" * 400])
def test_huge_numbers_in_player_and_checkpoint_files_are_one_line(tmp_path, capsys, number):
    """A huge number used to raise OverflowError past validation."""
    assert run_cli(capsys, *EVOLVE, "--out", tmp_path / "evo")[0] == 0
    best = (tmp_path / "evo" / "best.json").read_text()
    player = tmp_path / "player.json"
    player.write_text(best.replace('"format_version": 1', f'"format_version": {number}'))
    code, _, err = run_cli(capsys, "play", "dtd", player, "random", "--games", "10")
    assert_one_clear_line(code, err)
    checkpoint = tmp_path / "evo" / "checkpoint.json"
    data = json.loads(checkpoint.read_text())
    text = json.dumps(data).replace(f'"games": {data["games"]}', f'"games": {number}', 1)
    checkpoint.write_text(text)
    before = files(tmp_path / "evo")
    code, _, err = run_cli(capsys, *RESUME, "--out", tmp_path / "evo")
    assert_one_clear_line(code, err)
    assert files(tmp_path / "evo") == before


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda data: data["population"][0].__setitem__(0, [True] + data["population"][0][0][1:]), "true or false"),
        (lambda data: data["rng"].__setitem__("has_uint32", 7), "'has_uint32' must be 0 or 1"),
        (lambda data: data["rng"].__setitem__("extra", [1]), "fields must be exactly"),
    ],
    ids=["boolean-in-population", "rng-has-uint32-7", "rng-extra-key"],
)
def test_evolution_checkpoints_are_checked_for_meaning_not_only_type(tmp_path, capsys, change, words):
    assert run_cli(capsys, *EVOLVE, "--out", tmp_path / "evo")[0] == 0
    checkpoint = tmp_path / "evo" / "checkpoint.json"
    data = json.loads(checkpoint.read_text())
    change(data)
    checkpoint.write_text(json.dumps(data))
    before = files(tmp_path / "evo")
    code, _, err = run_cli(capsys, *RESUME, "--out", tmp_path / "evo")
    assert_one_clear_line(code, err)
    assert words in err
    assert files(tmp_path / "evo") == before


def test_a_boolean_in_a_player_table_is_refused(tmp_path, capsys):
    """``[true, 2]`` became ``[1, 2]`` in numpy: a table of numbers holds numbers only."""
    assert run_cli(capsys, *EVOLVE, "--out", tmp_path / "evo")[0] == 0
    data = json.loads((tmp_path / "evo" / "best.json").read_text())
    data["action"][0][0] = True
    player = tmp_path / "p.json"
    player.write_text(json.dumps(data))
    code, _, err = run_cli(capsys, "play", "dtd", player, "random", "--games", "10")
    assert_one_clear_line(code, err)
    assert "field 'action' must hold numbers, not true or false" in err


@pytest.mark.parametrize("command", [EVOLVE, TRAIN], ids=["evolve", "train"])
def test_resume_without_a_checkpoint_is_refused_by_every_command(tmp_path, capsys, command):
    """``evolve --resume`` on an empty folder used to start afresh, where ``train`` refused."""
    out = tmp_path / "empty"
    out.mkdir()
    code, _, err = run_cli(capsys, *command, "--resume", "--out", out)
    assert_one_clear_line(code, err)
    assert "nothing to resume" in err
    assert list(out.iterdir()) == []


_rng_states = st.fixed_dictionaries(
    {
        "bit_generator": st.sampled_from(["PCG64", "MT19937", ""]),
        "state": st.fixed_dictionaries({"state": st.integers(-1, 2**129), "inc": st.integers(-1, 2**129)})
        | st.dictionaries(st.sampled_from(["state", "inc", "x"]), st.integers(0, 2**128) | st.none()),
        "has_uint32": st.integers(-1, 9) | st.booleans() | st.none(),
        "uinteger": st.integers(-1, 2**33) | st.floats(allow_nan=True),
    },
    optional={"extra": st.integers()},
)


@hostile
@given(state=_rng_states | st.none() | st.lists(st.integers()))
def test_any_random_state_is_restored_exactly_or_refused(state):
    """The one reader of generator states: a valid state continues exactly as numpy's own
    generator would; anything else is one FsmarenaError."""
    from fsmarena.parallel import restore_rng

    try:
        rng = restore_rng(state, "checkpoint x")
    except FsmarenaError as exc:
        assert "invalid random generator state" in str(exc)
        return
    assert set(state) == {"bit_generator", "state", "has_uint32", "uinteger"}
    assert state["state"]["inc"] % 2 == 1 and state["has_uint32"] in (0, 1) and 0 <= state["uinteger"] < 2**32
    oracle = np.random.Generator(np.random.PCG64())
    oracle.bit_generator.state = state
    assert rng.bit_generator.state == oracle.bit_generator.state
    assert np.array_equal(rng.integers(0, 2**62, 8), oracle.integers(0, 2**62, 8))


@hostile
@given(
    table=st.recursive(
        st.integers(-5, 5) | st.booleans() | st.floats(allow_nan=False, width=16),
        lambda children: st.lists(children, min_size=0, max_size=3),
        max_leaves=12,
    ).filter(lambda value: isinstance(value, list))
)
def test_number_tables_are_read_or_refused_never_cast_from_booleans(table):
    from fsmarena.fileio import Fields

    fields = Fields({"t": table}, "player file x")
    try:
        shape = np.shape(table)
    except ValueError:  # ragged: the readers must refuse it whatever shape they expect
        shape = (len(table),)
    for read in (lambda: fields.int_array("t", shape, -5, 6), lambda: fields.float_array("t", shape)):
        try:
            array = read()
        except FsmarenaError:
            continue
        assert "True" not in repr(table) and "False" not in repr(table)
        assert np.array_equal(array, np.asarray(table, dtype=array.dtype))


@pytest.mark.slow
@pytest.mark.parametrize("command", ["inspect", "draw"])
def test_usage_games_run_in_bounded_memory_whatever_their_number(tmp_path, capsys, command):
    """``inspect L.json --games 1000000000`` (within MAX_GAMES) played each opponent and seat as
    one batch and died at once of an ArrayMemoryError; in chunks it keeps playing in a few
    hundred megabytes (stopped here after a few seconds)."""
    import psutil

    assert run_cli(capsys, *EVOLVE_BASE, "--states", "1", "--generations", "1", "--out", tmp_path / "evo")[0] == 0
    machine = tmp_path / "evo" / "best.json"
    argv = {
        "inspect": ["inspect", machine, "--games", "1000000000"],
        "draw": ["draw", machine, "--minimise", "--games", "1000000000", "--out", tmp_path / "m.dot"],
    }[command]
    process = subprocess.Popen(
        [*FSMARENA, *map(str, argv)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit_memory,
    )
    try:
        time.sleep(12)
        assert process.poll() is None, process.communicate()[1]
        assert psutil.Process(process.pid).memory_info().rss < 1024**3
    finally:
        process.kill()
        process.communicate()


def test_usage_in_chunks_counts_every_game_once(monkeypatch):
    """Chunked play counts what one call per opponent and seat counted: the number of games
    and, for a machine with one state, a decision per decision (oracle: games x decisions of a
    dtd game, whose length is fixed by its deck)."""
    import fsmarena.evo.usage as usage_module
    from fsmarena.evo.genome import genome_spec
    from fsmarena.games import get_game

    game = get_game("dtd", {})
    spec = genome_spec(game, "fsm", 1, "opp_last")
    machine = spec.player(spec.random(np.random.default_rng(0), 1))
    whole = usage_module.measure_usage(machine, game, games=40, seed=3)
    monkeypatch.setattr(usage_module, "CHUNK", 7)
    sizes = [outcome.n for outcome in usage_module.play_panel(machine, game, games=40, seed=3)]
    chunked = usage_module.measure_usage(machine, game, games=40, seed=3)
    panel = len(usage_module.default_panel(game)) * game.n_seats
    assert sizes == [7, 7, 7, 7, 7, 5] * panel
    assert chunked.games == whole.games == 40 * panel
    assert chunked.decisions == whole.decisions
    assert chunked.visits.sum() == whole.visits.sum() == whole.decisions


def test_deeply_nested_study_toml_is_one_line(tmp_path, capsys):
    study = tmp_path / "deep.toml"
    study.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    code, _, err = run_cli(capsys, "study", study, "--out", tmp_path / "out")
    assert_one_clear_line(code, err)
    assert "nested too deeply" in err
