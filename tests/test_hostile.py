"""Hostile input and faults against the command line: every one ends as the README promises,
one line on stderr (``fsmarena: error: ...``), exit status 2 (130 for Ctrl-C, 143 for SIGTERM),
no traceback, no partial output, in bounded time and memory.

Covered causes: files that are not regular files (FIFOs, devices, ``/proc``, folders), huge and
deeply nested files, numbers out of range (hypothesis), tampered checkpoints of each kind (rl
tables, the 31 agent's, evolution's), oversized budgets and game sizes, study definitions that
cannot run, concurrent runs and foreign folders, stale temporary files, hostile labels, a
``numpy.py`` in the working directory, and SIGINT/SIGTERM/SIGKILL with ``--jobs 2`` (no
orphaned worker afterwards; those are ``slow``).
"""

from __future__ import annotations

import csv
import io
import json
import os
import resource
import signal
import subprocess
import sys
import time
import unicodedata
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import loads, nesting_depth, read_npz
from fsmarena.outdir import CONTROL_FILES, KIND_FILE, LOCK, claim_folder, release_all
from fsmarena.text import clean_text
from tests.cli_helpers import run_cli

#: tabular training small enough for a test
TRAIN = [
    "train",
    "dtd",
    "--algo",
    "q-learning",
    "--episodes",
    "2000",
    "--batch",
    "1000",
    "--eval-every",
    "1000",
    "--eval-games",
    "100",
    "--seed",
    "1",
    "--quiet",
]
EVOLVE_BASE = [
    "evolve",
    "dtd",
    "--genome",
    "fsm",
    "--protocol",
    "round-robin",
    "--population",
    "4",
    "--games-per-pair",
    "2",
    "--seed",
    "1",
    "--quiet",
]
EVOLVE = [*EVOLVE_BASE, "--generations", "2"]
RESUME = [*EVOLVE_BASE, "--generations", "3", "--resume"]
#: the interpreter as the console script runs it: -P keeps the working directory off sys.path
FSMARENA = [sys.executable, "-P", "-m", "fsmarena"]
MEMORY_LIMIT = 3 * 1024**3  # address space: numpy, numba and scipy map a lot, but not gigabytes more
hostile = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def assert_one_clear_line(code: int, err: str, status: int = 2) -> None:
    assert code == status, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    if status == 2:
        assert lines[0].startswith("fsmarena: error:"), err


def files(folder: Path) -> dict[str, bytes]:
    """Every output file under ``folder`` (the folder's lock and kind files excluded)."""
    if not folder.exists():
        return {}
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in CONTROL_FILES
    }


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_bounded(argv: list[str], cwd: Path, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    """``fsmarena ARGV`` in a child process with a time limit and an address-space limit."""
    return subprocess.run(
        [*FSMARENA, *map(str, argv)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_limit_memory,
        **kwargs,
    )


# ---- files that are not regular files -------------------------------------------------------


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


json_trees = st.recursive(
    st.none() | st.integers() | st.text(alphabet='[]{}"\\ ,:a1', max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3),
    max_leaves=30,
)


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
        preexec_fn=_limit_memory,
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


# ---- tampered training checkpoints (read before anything is inflated) -------------------------


def _npz(path: Path, members: dict[str, bytes], compress: bool = False) -> None:
    mode = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", compression=mode) as archive:
        for name, data in members.items():
            archive.writestr(name + ".npy", data)


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _npy_header(shape: tuple[int, ...], dtype: str = "<f8") -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A finished tabular training run (its checkpoint is tampered with by the tests)."""
    from tests.cli_helpers import cli

    out = tmp_path_factory.mktemp("trained") / "run"
    assert cli(*TRAIN, "--out", out)[0] == 0
    return out


def _tamper(trained: Path, tmp_path: Path, change) -> Path:
    """A copy of the trained run whose checkpoint's arrays and metadata went through ``change``."""
    import shutil

    out = tmp_path / "run"
    shutil.copytree(trained, out)
    with np.load(out / "checkpoint.npz") as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(arrays["meta"].tobytes())
    members = change(arrays, meta)
    if members is None:
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
        members = {name: _npy(value) for name, value in arrays.items()}
    _npz(out / "checkpoint.npz", members)
    return out


def _set(key, value):
    def change(arrays, meta):
        meta[key] = value

    return change


def _drop(key):
    def change(arrays, meta):
        del meta[key]

    return change


def _nan_q(arrays, meta):
    arrays["table_q"] = arrays["table_q"].copy()
    arrays["table_q"].flat[0] = np.nan


def _negative_counts(arrays, meta):
    arrays["table_n"] = arrays["table_n"].astype(np.int64) - 5


def _huge_shape(arrays, meta):
    members = {name: _npy(value) for name, value in arrays.items()}
    members["table_q"] = _npy_header((10**6, 10**6)) + b"\0" * 64  # declares 8 TB
    return members


def _count_near_2_63(arrays, meta):
    """A visit count that a resumed run would push past 2^63, where it wraps negative."""
    arrays["table_n"] = arrays["table_n"].astype(np.int64)
    state, action = np.argwhere(arrays["table_legal"])[0]
    arrays["table_n"][state, action] = 2**63 - 10


def _rng(**changes):
    def change(arrays, meta):
        meta["rng"] = {**meta["rng"], **changes}

    return change


def _rng_inner(**changes):
    def change(arrays, meta):
        meta["rng"]["state"] = {**meta["rng"]["state"], **changes}

    return change


def _object_dtype(arrays, meta):
    members = {name: _npy(value) for name, value in arrays.items()}
    members["table_q"] = _npy_header((1,), "|O") + b"\0" * 8
    return members


@pytest.mark.parametrize(
    "change, words",
    [
        (_drop("done"), "missing field 'done'"),
        (_set("done", -1), "'done' must be between"),
        (_set("done", 10**30), "out of range|'done' must be between"),
        (_set("done", "many"), "'done' must be an integer"),
        (_drop("rng"), "missing field 'rng'"),
        (_set("curve", {"a": 1}), "'curve' must be a list"),
        (_nan_q, "NaN or infinite"),
        (_negative_counts, "negative entries"),
        (_huge_shape, "larger than its data"),
        (_object_dtype, "unsupported type"),
        (_count_near_2_63, "MAX_TABLE_COUNT"),
        (_rng(extra=1), "fields must be exactly"),
        (_rng(has_uint32=7), "'has_uint32' must be 0 or 1"),
        (_rng(has_uint32=True), "'has_uint32' must be 0 or 1"),
        (_rng(uinteger=2**32), "'uinteger' must be"),
        (_rng_inner(inc=2), "odd 128-bit increment"),
        (_rng_inner(state=2**128), "128-bit state"),
        (_rng_inner(extra=0), "'state' must be an object"),
    ],
    ids=[
        "no-done",
        "done-negative",
        "done-1e30",
        "done-text",
        "no-rng",
        "curve-object",
        "nan-q",
        "negative-counts",
        "huge-shape",
        "object-dtype",
        "count-near-2^63",
        "rng-extra-key",
        "rng-has-uint32-7",
        "rng-has-uint32-bool",
        "rng-uinteger-33-bits",
        "rng-even-increment",
        "rng-state-129-bits",
        "rng-state-extra-key",
    ],
)
def test_tampered_training_checkpoints_are_one_line_and_leave_the_folder_alone(
    trained, tmp_path, capsys, change, words
):
    out = _tamper(trained, tmp_path, change)
    before = files(out)
    code, _, err = run_cli(capsys, *TRAIN, "--resume", "--out", out)
    assert_one_clear_line(code, err)
    assert any(word in err for word in words.split("|")), err
    assert files(out) == before


class _SparseWriter(io.RawIOBase):
    """A file that turns long runs of zero bytes into holes (seeks), so a test can make a
    checkpoint of hundreds of megabytes that takes no disk and no time to write."""

    def __init__(self, handle):
        self.handle = handle

    def writable(self):
        return True

    def seekable(self):
        return True

    def write(self, data):
        data = bytes(data)
        if len(data) >= 4096 and not any(data):
            self.handle.seek(len(data), os.SEEK_CUR)
            end = self.handle.tell()
            self.handle.truncate(max(end, os.fstat(self.handle.fileno()).st_size))
        else:
            self.handle.write(data)
        return len(data)

    def seek(self, offset, whence=os.SEEK_SET):
        return self.handle.seek(offset, whence)

    def tell(self):
        return self.handle.tell()

    def flush(self):
        self.handle.flush()


def _huge_table_q(trained: Path, out: Path, entries: int) -> None:
    """The trained run's checkpoint with a zero ``table_q`` of ``entries`` float64 values."""
    import shutil

    shutil.copytree(trained, out)
    with np.load(out / "checkpoint.npz") as data:
        arrays = {name: data[name] for name in data.files if name != "table_q"}
    with open(out / "checkpoint.npz", "wb") as raw, zipfile.ZipFile(_SparseWriter(raw), "w") as archive:
        for name, value in arrays.items():
            archive.writestr(name + ".npy", _npy(value))
        with archive.open("table_q.npy", "w", force_zip64=True) as member:
            member.write(_npy_header((entries,)))
            left = entries * 8
            while left:
                member.write(bytes(min(left, 1 << 24)))
                left -= min(left, 1 << 24)


@pytest.mark.slow
def test_a_table_of_the_wrong_shape_is_refused_from_its_header_in_bounded_memory(trained, tmp_path):
    """An 800 MB ``table_q`` of 10^8 entries peaked at 2.5 GB (three copies) before "expected
    shape"; its header says so first, and nothing of it is read."""
    out = tmp_path / "run"
    _huge_table_q(trained, out, 10**8)
    assert (out / "checkpoint.npz").stat().st_size > 800_000_000
    assert os.stat(out / "checkpoint.npz").st_blocks * 512 < 10_000_000  # sparse
    before = files(out)
    done = run_bounded(
        [*TRAIN, "--resume", "--out", out], tmp_path, timeout=120, env={**os.environ, "MALLOC_ARENA_MAX": "2"}
    )
    assert_one_clear_line(done.returncode, done.stderr)
    assert "table 'q' has shape [100000000]; expected shape [" in done.stderr
    assert files(out) == before


def test_a_table_is_checked_before_any_of_its_data_is_read(trained, tmp_path, monkeypatch, capsys):
    import fsmarena.fileio as fileio

    out = tmp_path / "run"
    _huge_table_q(trained, out, 1000)
    read = []
    original = fileio._read_into
    monkeypatch.setattr(
        fileio, "_read_into", lambda handle, buffer: read.append(len(buffer)) or original(handle, buffer)
    )
    code, _, err = run_cli(capsys, *TRAIN, "--resume", "--out", out)
    assert_one_clear_line(code, err)
    assert "expected shape" in err
    assert 8000 not in read


def test_a_zip_bomb_checkpoint_is_refused_before_inflating(tmp_path):
    path = tmp_path / "checkpoint.npz"
    _npz(path, {"table_q": _npy_header((5_000_000,)) + b"\0" * 40_000_000}, compress=True)
    assert path.stat().st_size < 1_000_000  # inflates 400 times
    start = time.monotonic()
    with pytest.raises(FsmarenaError, match="compressed more than"):
        read_npz(path)
    assert time.monotonic() - start < 5


@hostile
@given(
    shape=st.lists(st.integers(0, 2**40), min_size=0, max_size=4),
    dtype=st.sampled_from(["<f8", "<i8", "|b1", "<U3", "|O", "<c16", "|V8", "<f2", ">i4"]),
    fortran=st.booleans(),
    payload=st.integers(0, 256),
)
def test_any_npy_header_is_read_or_refused_without_inflating(tmp_path_factory, shape, dtype, fortran, payload):
    """Declared shapes up to 2^160 elements, odd dtypes: only FsmarenaError, never an allocation
    beyond the member's real data."""
    path = tmp_path_factory.mktemp("npz") / "c.npz"
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": fortran, "shape": tuple(shape)})
    _npz(path, {"a": buffer.getvalue() + b"\1" * payload})
    try:
        arrays = read_npz(path)
    except FsmarenaError:
        return
    assert arrays["a"].nbytes <= payload and arrays["a"].shape == tuple(shape)


@hostile
@given(flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=8))
def test_corrupted_checkpoint_bytes_are_refused_or_read_never_crash(trained, flips):
    raw = bytearray((trained / "checkpoint.npz").read_bytes())
    for position, value in flips:
        raw[position % len(raw)] = value
    path = trained.parent / "corrupt.npz"
    path.write_bytes(bytes(raw))
    from fsmarena.rl.checkpoint import load_checkpoint

    try:
        load_checkpoint(path)
    except FsmarenaError:
        pass


def test_a_member_shorter_than_its_shape_is_refused(tmp_path):
    path = tmp_path / "c.npz"
    _npz(path, {"a": _npy_header((1000,))[:-1] + b"\n" + b"\0" * 80})
    with pytest.raises(FsmarenaError, match="larger than its data"):
        read_npz(path)


def test_tampered_31_agent_checkpoint_is_one_line(tmp_path, capsys):
    """The network learner's checkpoint goes through the same reader and its own fields."""
    pytest.importorskip("sklearn")
    args = [
        "train",
        "thirtyone",
        "--algo",
        "mlp",
        "--episodes",
        "200",
        "--eval-every",
        "200",
        "--eval-games",
        "20",
        "--hidden",
        "4",
        "--seed",
        "1",
        "--quiet",
    ]
    out = tmp_path / "mlp"
    assert run_cli(capsys, *args, "--out", out)[0] == 0
    with np.load(out / "checkpoint.npz") as data:
        arrays = {name: data[name] for name in data.files}
    for key, value in (("metrics", None), ("done", 10**12)):
        meta = json.loads(arrays["meta"].tobytes())
        if value is None:
            del meta[key]
        else:
            meta[key] = value
        tampered = dict(arrays, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
        _npz(out / "checkpoint.npz", {name: _npy(v) for name, v in tampered.items()})
        before = files(out)
        code, _, err = run_cli(capsys, *args, "--resume", "--out", out)
        assert_one_clear_line(code, err)
        assert key in err
        assert files(out) == before


# ---- budgets, workers and game sizes: refused before any work or file ----------------------------


@pytest.mark.parametrize(
    "argv, words",
    [
        (["play", "dtd", "random", "random", "--games", "1000000000000000"], "MAX_GAMES"),
        (["play", "dtd", "random", "random", "--games", "10", "--jobs", "1000"], "MAX_JOBS"),
        (["play", "dtd", "random", "random", "--games", "10", "--seed", "1" + "0" * 25], "MAX_SEED"),
        (["play", "dtd", "random", "random", "--games", "9" * 5000], "too long"),
        (["bench", "dtd", "--scale", "inf"], "MAX_BENCH_SCALE"),
        (["bench", "dtd", "--scale", "nan"], "MAX_BENCH_SCALE"),
        (
            [
                "play",
                "dtd",
                "random",
                "random",
                "--param",
                "cards=" + ",".join(str(i / 100) for i in range(1, 100)),
                "--param",
                "counts=" + ",".join(["2"] * 99),
            ],
            "MAX_HANDS",
        ),
        (["play", "dtd", "random", "random", "--param", "counts=1000000000,28,16"], "MAX_DECK"),
        (["play", "dtd", "random", "random", "--param", "dollar=1e300"], "MAX_VALUE"),
        ([*TRAIN[:4], "--episodes", "1000000000000", "--out", "OUT"], "MAX_EPISODES"),
        ([*EVOLVE, "--population", "100000", "--out", "OUT"], "MAX_POPULATION"),
        ([*EVOLVE, "--states", "100000", "--out", "OUT"], "MAX_STATES"),
        ([*EVOLVE, "--games-per-pair", "10000000000", "--out", "OUT"], "MAX_GAMES"),
        (
            ["tournament", "dtd", "random", "always-large", "always-small", "--games", "1000000000", "--out", "OUT"],
            "MAX_GAMES",
        ),
        ([*TRAIN[:6], "--batch", "100000000", "--out", "OUT"], "MAX_BATCH_GAMES"),
        (
            ["train", "vautour", "--algo", "sarsa", "--episodes", "1000", "--batch", "100000000", "--out", "OUT"],
            "MAX_BATCH_GAMES",
        ),
        (
            ["train", "thirtyone", "--algo", "mlp", "--episodes", "1000", "--batch", "2000000", "--out", "OUT"],
            "MAX_BATCH_GAMES",
        ),
        (
            ["train", "thirtyone", "--algo", "mlp", "--episodes", "1000", "--epochs", "100000", "--out", "OUT"],
            "MAX_EPOCH_GAMES",
        ),
        (
            ["train", "vautour", "--param", "cards=16", "--algo", "q-learning", "--episodes", "1000", "--out", "OUT"],
            "MAX_TABLE_ENTRIES",
        ),
    ],
    ids=[
        "games",
        "jobs",
        "seed",
        "long-number",
        "scale-inf",
        "scale-nan",
        "card-types",
        "deck",
        "dollar",
        "episodes",
        "population",
        "states",
        "games-per-pair",
        "tournament-total",
        "train-batch",
        "train-batch-vautour",
        "mlp-batch",
        "mlp-epochs-x-batch",
        "dense-table-vautour-16",
    ],
)
def test_oversized_budgets_name_their_limit_and_write_nothing(tmp_path, capsys, argv, words):
    out = tmp_path / "out"
    start = time.monotonic()
    code, stdout, err = run_cli(capsys, *[str(out) if a == "OUT" else a for a in argv])
    assert_one_clear_line(code, err)
    assert words in err
    assert stdout == ""
    assert not out.exists()
    assert time.monotonic() - start < 10


STUDY_TOML = """
name = "hostile"
version = 1
game = "dtd"
seed = 1
panel = ["random"]
{extra}
[[competitors]]
name = "rnd"
method = "train"
params = {{ algo = "q-learning", episodes = 1000 }}

[scales.test]
replicates = 1
panel_games = {panel_games}
crossplay_halfwidth = {halfwidth}
"""


@pytest.mark.parametrize(
    "panel_games, halfwidth, extra, words",
    [
        ("1000000000000000", "0.2", "", "MAX_COUNT|MAX_GAMES"),
        ("100", "1e-9", "", "MIN_HALFWIDTH"),
        ("100", "nan", "", "finite"),
        ("100", "0.2", 'report = "exact-values"', "not one of the game dtd's reports"),
        ("100", "0.2", 'report = "nonsense"', "unknown report"),
        ("100", "0.2", "", "MAX_COUNT"),
        ("100", "0.2", "", "finite"),
    ],
    ids=[
        "panel-games",
        "halfwidth",
        "halfwidth-nan",
        "report-of-another-game",
        "unknown-report",
        "episodes-1e12",
        "nan-setting",
    ],
)
def test_a_study_that_cannot_run_claims_no_folder(tmp_path, capsys, panel_games, halfwidth, extra, words):
    study = tmp_path / "hostile.toml"
    text = STUDY_TOML.format(panel_games=panel_games, halfwidth=halfwidth, extra=extra)
    if words == "MAX_COUNT":
        text = text.replace("episodes = 1000", "episodes = 1000000000000")
    elif words == "finite" and halfwidth != "nan":
        text = text.replace("episodes = 1000", "episodes = 1000, epsilon = nan")
    study.write_text(text)
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "study", study, "--scale", "test", "--out", out)
    assert_one_clear_line(code, err)
    assert any(word in err for word in words.split("|")), err
    assert not out.exists()


@pytest.mark.parametrize(
    "old, new, words",
    [
        ('panel = ["random"]', "panel = []", "at least one player"),
        ("seed = 1", "seed = 1\nreports = 'exact-values'", "unknown field 'reports'"),
        ('method = "train"', 'method = "train"\nlable = "typo"', "unknown field 'lable'"),
        ("replicates = 1", "replicates = 1\nreplicate = 2", "unknown field 'replicate'"),
        ("[[competitors]]", "[best_known]\nbudgets = { test = 0 }\n[[competitors]]", "must be positive"),
        ("[[competitors]]", "[best_known]\nbudgets = { huge = 10 }\n[[competitors]]", "unknown field 'huge'"),
        ("[[competitors]]", "[best_known]\nvalue = nan\nplayer = '/dev/zero'\n[[competitors]]", "unknown field"),
        ("[[competitors]]", "[best_known]\nopponents = []\n[[competitors]]", "at least one player"),
        (
            'method = "train"\nparams = { algo = "q-learning", episodes = 1000 }',
            'method = "builtin"\nparams = { player = "missing.json" }',
            "does not exist",
        ),
        (
            'method = "train"\nparams = { algo = "q-learning", episodes = 1000 }',
            'method = "evolve"\nparams = { genome = "fsm", protocol = "round-robin", population = 5000 }',
            "MAX_GENERATION_GAMES",
        ),
    ],
    ids=[
        "empty-panel",
        "unknown-study-field",
        "unknown-competitor-field",
        "unknown-scale-field",
        "best-known-zero-budget",
        "best-known-unknown-scale",
        "best-known-unknown-fields",
        "best-known-no-opponent",
        "missing-player-file",
        "evolve-generation-too-big",
    ],
)
def test_a_study_file_with_a_mistake_is_one_line_before_anything(tmp_path, capsys, old, new, words):
    """Checked before the study's first line of progress (no --quiet here) and before its folder."""
    text = STUDY_TOML.format(panel_games=100, halfwidth=0.2, extra="")
    assert old in text
    study = tmp_path / "hostile.toml"
    study.write_text(text.replace(old, new))
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "study", study, "--scale", "test", "--out", out)
    assert_one_clear_line(code, err)
    assert words in err
    assert not out.exists()


def test_study_labels_and_titles_are_sanitised_and_no_figures_means_none(tmp_path, capsys):
    text = STUDY_TOML.format(panel_games=50, halfwidth=0.2, extra='title = "T\\u001b[2J"')
    text = text.replace('method = "train"', 'label = "\\u001b[31mRed\\nline"\nmethod = "train"')
    study = tmp_path / "hostile.toml"
    study.write_text(text.replace("episodes = 1000", "episodes = 1000, eval_games = 50"))
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "study", study, "--scale", "test", "--out", out, "--no-figures", "--quiet")
    assert (code, err) == (0, "")
    written = files(out)
    assert written and not any(name.startswith("figures/") for name in written)
    for name, content in written.items():
        assert b"\x1b" not in content, name
    report = (out / "report.md").read_text()
    assert "?[31mRed?line" in report and "T?[2J" in report


# ---- output folders ---------------------------------------------------------------------------


def test_a_second_run_into_a_folder_in_use_is_refused_naming_the_holder(tmp_path, capsys):
    out = tmp_path / "evo"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from fsmarena.outdir import claim_folder; "
            "claim_folder(sys.argv[1], 'evolve'); print('held', flush=True); time.sleep(60)",
            str(out),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        code, _, err = run_cli(capsys, *EVOLVE, "--out", out)
        assert_one_clear_line(code, err)
        assert f"is in use by another fsmarena run (pid {holder.pid})" in err
        assert files(out) == {}
    finally:
        holder.kill()
        holder.wait()
    assert run_cli(capsys, *EVOLVE, "--out", out)[0] == 0  # the kernel released the lock


def test_two_concurrent_runs_into_one_folder_one_wins_one_is_refused(tmp_path):
    out = tmp_path / "evo"
    argv = [*FSMARENA, *EVOLVE, "--generations", "60", "--out", str(out)]
    runs = [
        subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    results = [(p.wait(timeout=120), p.stderr.read()) for p in runs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    refused = next(err for code, err in results if code == 2)
    assert_one_clear_line(2, refused)
    assert "in use by another fsmarena run" in refused or "already holds a run" in refused


@pytest.mark.parametrize(
    "first, second", [("evolve", "train"), ("train", "evolve"), ("evolve", "tournament"), ("tournament", "study")]
)
def test_commands_refuse_each_others_folders(tmp_path, capsys, first, second):
    commands = {
        "evolve": EVOLVE,
        "train": TRAIN,
        "tournament": ["tournament", "dtd", "random", "always-large", "--games", "20", "--quiet"],
        "study": ["study", "dtd-thesis", "--scale", "test", "--no-figures", "--quiet"],
    }
    out = tmp_path / "out"
    assert run_cli(capsys, *commands[first], "--out", out)[0] == 0
    assert (out / KIND_FILE).read_text().strip() == first
    before = files(out)
    code, _, err = run_cli(capsys, *commands[second], "--out", out)
    assert_one_clear_line(code, err)
    assert f"'fsmarena {first}' run" in err
    assert files(out) == before


def test_stale_temporary_files_are_removed_by_the_next_run(tmp_path, capsys):
    out = tmp_path / "evo"
    assert run_cli(capsys, *EVOLVE, "--out", out)[0] == 0
    stale = [out / ".checkpoint.json.tmp-ab12cd34.json", out / ".best.json.tmp-zz99_x0a.json"]
    for path in stale:
        path.write_text("{half")
    keep = out / ".notes"
    keep.write_text("mine")
    assert run_cli(capsys, *RESUME, "--out", out)[0] == 0
    assert not any(path.exists() for path in stale)
    assert keep.read_text() == "mine"


def test_a_failed_tournament_rerun_leaves_no_mix_of_old_and_new_tables(tmp_path, capsys, monkeypatch):
    out = tmp_path / "t"
    argv = ["tournament", "dtd", "random", "always-large", "--quiet", "--out", out, "--games"]
    assert run_cli(capsys, *argv, 20)[0] == 0
    assert (out / "matrix.csv").exists()

    def broken_heatmap(*args, **kwargs):
        raise FsmarenaError("cannot write heatmap: disk full")

    monkeypatch.setattr("fsmarena.figures.heatmap.win_rate_heatmap", broken_heatmap)
    code, _, err = run_cli(capsys, *argv, 30)
    assert_one_clear_line(code, err)
    tables = files(out)
    assert "tournament.json" not in tables  # the old summary is gone, not left beside new tables
    for name in ("results.csv", "matrix.csv"):
        if name in tables:
            assert b",30," in tables[name] or name == "matrix.csv"


def test_a_run_refused_after_claiming_its_folder_leaves_nothing_behind(tmp_path, capsys):
    """evolve checks its panel after claiming the folder: the refusal removes what the claim made."""
    out = tmp_path / "new"
    code, _, err = run_cli(capsys, *EVOLVE_BASE, "--protocol", "panel", "--panel", "nobody", "--out", out)
    assert_one_clear_line(code, err)
    assert not out.exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("x")
    code, _, err = run_cli(capsys, "study", "vautour", "--scale", "test", "--out", mine)
    assert_one_clear_line(code, err)
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]


def test_claiming_is_idempotent_within_a_run_and_released_after(tmp_path):
    out = claim_folder(tmp_path / "x", "train")
    assert claim_folder(out, "train") == out
    assert (out / LOCK).read_text().strip() == str(os.getpid())
    release_all()
    with pytest.raises(FsmarenaError, match="'fsmarena train' run, not of 'evolve'"):
        claim_folder(out, "evolve")


@pytest.mark.parametrize(
    "argv",
    [
        EVOLVE,
        TRAIN,
        ["tournament", "dtd", "random", "always-large", "--games", "20", "--quiet"],
        ["study", "dtd-thesis", "--scale", "test", "--no-figures", "--quiet"],
        ["search", "dtd", "--quiet"],
        ["solve", "vautour", "--param", "cards=3"],
        ["draw", "PLAYER"],
    ],
    ids=["evolve", "train", "tournament", "study", "search", "solve", "draw"],
)
def test_an_empty_output_path_is_refused_not_taken_for_the_current_folder(tmp_path, capsys, monkeypatch, argv):
    """``--out ''`` used to lock, mark and fill the working directory (solve: write nothing)."""
    monkeypatch.chdir(tmp_path)
    player = tmp_path / "p.json"
    player.write_text("{}")
    code, out, err = run_cli(capsys, *[str(player) if a == "PLAYER" else a for a in argv], "--out", "")
    assert_one_clear_line(code, err)
    assert "--out: is empty" in err
    assert out == ""
    assert [p.name for p in tmp_path.iterdir()] == ["p.json"]


@pytest.mark.parametrize("control", [LOCK, KIND_FILE])
@pytest.mark.parametrize("shape", ["FIFO", "LINK_TO_BIG_FILE", "LINK_TO_DEVICE", "FOLDER"])
def test_control_files_that_are_not_small_regular_files_are_refused_at_once(tmp_path, capsys, control, shape):
    """A FIFO as the lock gave "Illegal seek" with a traceback; a link to a 4 GB file as the kind
    file was read whole.  The control files are read only as small regular files, never through
    a link, never with a blocking open."""
    out = tmp_path / "out"
    out.mkdir()
    path = out / control
    if shape == "FIFO":
        os.mkfifo(path)
    elif shape == "LINK_TO_BIG_FILE":
        big = tmp_path / "big"
        with open(big, "wb") as handle:
            handle.truncate(4 * 1024**3)  # sparse: 4 GB that take no disk
        path.symlink_to(big)
    elif shape == "LINK_TO_DEVICE":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    start = time.monotonic()
    done = run_bounded(
        ["tournament", "dtd", "random", "always-large", "--games", "20", "--quiet", "--out", out], tmp_path
    )
    assert_one_clear_line(done.returncode, done.stderr)
    assert any(words in done.stderr for words in ("regular file", "symbolic link", "is a folder", "Is a directory"))
    assert time.monotonic() - start < 60
    assert sorted(p.name for p in out.iterdir()) == [control]


def test_an_oversized_kind_file_is_an_unknown_folder(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / KIND_FILE).write_text("evolve" + " " * 100)
    code, _, err = run_cli(capsys, *EVOLVE, "--out", out)
    assert_one_clear_line(code, err)
    assert "too large" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["games", "--json"],
        ["games"],
        ["play", "dtd", "random", "random", "--games", "100", "--json"],
        ["--help"],
    ],
    ids=["games-json", "games-text", "play-json", "help"],
)
def test_a_full_standard_output_is_one_line_and_a_failure(tmp_path, argv):
    """``> /dev/full`` ended in an OSError traceback (or, for short output, a message from the
    interpreter's last flush); a closed pipe stays silent and successful."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*FSMARENA, *argv], cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60
        )
    assert_one_clear_line(done.returncode, done.stderr)
    assert "cannot write to standard output: No space left on device" in done.stderr


def test_a_closed_pipe_on_standard_output_is_still_silent_success(tmp_path):
    reader = subprocess.Popen(["head", "-c", "10"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    done = subprocess.run(
        [*FSMARENA, "games", "--json"], cwd=tmp_path, stdout=reader.stdin, stderr=subprocess.PIPE, text=True, timeout=60
    )
    reader.stdin.close()
    reader.wait()
    assert (done.returncode, done.stderr) == (0, "")


@hostile
@given(
    content=st.binary(max_size=200) | st.sampled_from([b"evolve\n", b"train", b" study \n", b"\xff\xfe"]),
    shape=st.sampled_from(["file", "link", "fifo", "folder", "missing"]),
)
def test_any_kind_file_is_read_or_refused_never_another_error(tmp_path_factory, content, shape):
    """The control-file reader: a small regular file gives its kind (or "unknown"), no file gives
    None (then the folder's own files decide), anything else one FsmarenaError."""
    from fsmarena.outdir import KINDS, folder_kind

    out = tmp_path_factory.mktemp("out")
    marker = out / KIND_FILE
    if shape == "file":
        marker.write_bytes(content)
    elif shape == "link":
        (out / "target").write_bytes(content)
        marker.symlink_to(out / "target")
    elif shape == "fifo":
        os.mkfifo(marker)
    elif shape == "folder":
        marker.mkdir()
    try:
        kind = folder_kind(out)
    except FsmarenaError:
        assert shape in ("link", "fifo", "folder") or len(content) > 64
        return
    assert shape in ("file", "missing")
    if shape == "missing":
        assert kind is None
    else:
        text = content.decode("ascii", "replace").strip()
        assert kind == (text if text in KINDS else "unknown")


@hostile
@given(
    value=json_trees,
    cut=st.integers(0, 400),
    noise=st.sampled_from(["", '"', "[", "{", "1e400", ",", "\\", "true"]),
)
def test_the_budgeted_parser_reads_what_json_reads_or_refuses_in_one_line(monkeypatch, value, cut, noise):
    """Valid JSON under the limits parses to what the standard parser gives; mutated text (cut,
    with a character inserted) parses or is one FsmarenaError; a budget too small for the value
    is refused, never half-read."""
    text = json.dumps(value)
    assert loads(text) == value
    mutated = text[:cut] + noise + text[cut:]
    try:
        loads(mutated)
    except FsmarenaError:
        pass
    with monkeypatch.context() as patch:
        patch.setattr(limits, "MAX_JSON_PARSED_BYTES", 7)  # less than any one string, container or number
        if any(c in text for c in '[{"') or any(ch.isdigit() for ch in text):
            with pytest.raises(FsmarenaError, match="MAX_JSON_PARSED_BYTES"):
                loads(text)


# ---- labels -------------------------------------------------------------------------------------


@hostile
@given(
    label=st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
    | st.sampled_from(["\x1b[31mred\x1b[0m", "\ud800", "a\nb\rc", "\x1b]0;title\x07", "\x9b2J"])
)
def test_sanitised_text_has_no_control_characters_or_surrogates(label):
    clean = clean_text(label)
    clean.encode("utf-8")  # raises on a lone surrogate
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in clean)
    assert len(clean) <= 200


def test_hostile_labels_reach_neither_terminal_nor_files_raw(tmp_path, capsys):
    assert run_cli(capsys, *EVOLVE, "--out", tmp_path / "evo")[0] == 0
    data = json.loads((tmp_path / "evo" / "best.json").read_text())
    data["label"] = "\x1b[2J\x1b[31mevil\ud800\nline"
    player = tmp_path / "evil.json"
    player.write_text(json.dumps(data))
    code, out, err = run_cli(capsys, "play", "dtd", player, "random", "--games", "10")
    assert code == 0, err
    assert "\x1b" not in out and "\ud800" not in out and "?[31mevil" in out
    code, out, err = run_cli(
        capsys, "tournament", "dtd", player, "random", "--games", "10", "--quiet", "--out", tmp_path / "t"
    )
    assert code == 0, err
    for path in (tmp_path / "t").iterdir():
        if path.suffix in (".csv", ".json"):
            text = path.read_text(encoding="utf-8")
            assert "\x1b" not in text and "\\u001b" not in text
    code, out, err = run_cli(capsys, "draw", player, "--out", tmp_path / "m.dot")
    assert code == 0, err
    assert "\x1b" not in (tmp_path / "m.dot").read_text()


#: labels and titles that each broke draw, the tournament heat map or a study figure, or reached
#: a terminal or a spreadsheet raw (issue #27): mathtext, format, bidi and separator characters,
#: a lone surrogate, formula-leading cells, and sizes
HOSTILE_TEXTS = {
    "dollars": "$$",
    "macro": "$\\undefinedmacro$",
    "deep-braces": "${" + "{" * 400 + "$",
    "zero-width": "a\u200bb\ufeff",
    "bidi-separator": "\u202eabc\u2028d\u2029",
    "surrogate": "x\ud800y",
    "private-unassigned": "\ue000\u0378\U000e0001",
    "formula-equals": '=HYPERLINK("http://x","y")',
    "formula-plus": "+1+1",
    "formula-minus": "-2+3",
    "formula-at": "@SUM(A1:A9)",
    "huge": "W" * 30_000,
}


def hostile_player(folder: Path, name: str, label: str) -> Path:
    """A 1-state table FSM for dtd labelled ``label`` (written as raw JSON: the label uncleaned)."""
    from fsmarena.evo.table_fsm import TableFSM
    from fsmarena.games.dtd.game import DivideTheDollar
    from fsmarena.games.players import player_to_json

    data = player_to_json(TableFSM([[0, 0, 0, 0]], [[0, 1, 2, 0]], inputs="opp_last"), DivideTheDollar())
    data["label"] = label
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data))  # json escapes a lone surrogate as \ud800
    return path


def assert_clean_output(text: str) -> None:
    """Nothing of a forbidden Unicode category (line breaks aside) and no line of megabytes."""
    from fsmarena.text import FORBIDDEN_CATEGORIES

    assert not [c for c in text.replace("\n", "") if unicodedata.category(c) in FORBIDDEN_CATEGORIES]


@pytest.mark.parametrize("name", list(HOSTILE_TEXTS))
def test_draw_takes_any_label_and_title(tmp_path, capsys, name):
    text = HOSTILE_TEXTS[name]
    player = hostile_player(tmp_path, name, text)
    for fmt in ("png", "pdf", "svg"):
        out = tmp_path / f"m.{fmt}"
        code, stdout, err = run_cli(capsys, "draw", player, "--out", out, "--games", "0", f"--title={text}")
        assert (code, err) == (0, ""), err
        assert out.stat().st_size > 0
        assert_clean_output(stdout)
    svg = (tmp_path / "m.svg").read_text(encoding="utf-8")
    assert "\u200b" not in svg and "\u202e" not in svg and "W" * 300 not in svg


def csv_cells(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as handle:
        return [cell for row in csv.reader(handle) for cell in row]


def test_tournament_heat_map_tables_and_terminal_take_any_label(tmp_path, capsys):
    """Every hostile label in one round robin: the heat maps are drawn, the terminal and the
    CSV files get no forbidden character, and no CSV cell is a formula (a leading ' defuses it)."""
    players = [hostile_player(tmp_path, name, text) for name, text in HOSTILE_TEXTS.items()]
    out = tmp_path / "t"
    code, stdout, err = run_cli(capsys, "tournament", "dtd", *players, "random", "--games", "4", "--out", out)
    assert (code, err) == (0, ""), err
    assert_clean_output(stdout)
    assert (out / "heatmap.png").stat().st_size and (out / "heatmap.pdf").stat().st_size
    for table in ("matrix.csv", "results.csv"):
        cells = csv_cells(out / table)
        assert_clean_output("".join(cells))
        for cell in cells:
            if cell.startswith(("=", "+", "-", "@")):
                float(cell)  # only numbers may start like a formula
        assert '\'=HYPERLINK("http://x","y")' in cells and "'-2+3" in cells and "'@SUM(A1:A9)" in cells
    assert_clean_output((out / "tournament.json").read_text(encoding="utf-8"))


def test_study_figures_and_tables_take_hostile_competitor_labels(tmp_path, capsys):
    """Competitor labels with mathtext, format and bidi characters and a formula reach the
    study's figures (heat map, boxes, curves) and tables cleaned and defused."""
    labels = ["$$", "=1+1", "a\\u200bb\\ufeff\\u202e\\u2028"]
    competitors = "".join(
        f'[[competitors]]\nname = "c{i}"\nlabel = "{label}"\nmethod = "train"\n'
        'params = { algo = "q-learning", episodes = 1000, eval_games = 50 }\n\n'
        for i, label in enumerate(labels)
    )
    text = STUDY_TOML.format(panel_games=50, halfwidth=0.3, extra="").split("[[competitors]]")[0]
    text += competitors + "[scales.test]\nreplicates = 1\npanel_games = 50\ncrossplay_halfwidth = 0.3\n"
    study = tmp_path / "hostile.toml"
    study.write_text(text)
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "study", study, "--scale", "test", "--out", out, "--quiet")
    assert (code, err) == (0, ""), err
    written = files(out)
    assert any(name.startswith("figures/") and name.endswith(".pdf") for name in written)
    for name, content in written.items():
        if name.endswith((".csv", ".md", ".json")):
            assert_clean_output(content.decode("utf-8"))
        if name.endswith(".csv"):
            for cell in csv_cells(out / name):
                assert not cell.startswith("=1+1"), name


def test_error_lines_are_sanitised_too(tmp_path, capsys):
    code, _, err = run_cli(capsys, "play", "dtd", str(tmp_path / "\x1b[31mmissing.json"), "random")
    assert_one_clear_line(code, err)
    assert "\x1b" not in err


# ---- workers and signals ---------------------------------------------------------------------


def _alive(pids: list[int]) -> list[int]:
    import psutil

    living = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                living.append(pid)
        except psutil.NoSuchProcess:
            pass
    return living


def _ctrl_c_as_from_a_terminal() -> None:
    """In the child before it starts: Ctrl-C at its default, as a shell leaves it.  A child
    inherits an ignored SIGINT (Python then installs no handler, and neither does fsmarena,
    which respects it), and a test worker may hold it ignored for a moment (a pool starting
    in another test's leftover state); the interrupt tests are about the default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


#: a command whose worker-pool thread fails while the run is being interrupted, as loky's queue
#: manager can (``KeyError`` on a work item the shutdown already dropped; seen once in CI)
_POOL_THREAD_FAILS_ON_INTERRUPT = """
import signal, sys, threading, time
import fsmarena.commands.play as play
from fsmarena import cli

def run(args):
    def queue_manager():
        cli._stopping.wait(10)
        raise KeyError(93)
    thread = threading.Thread(target=queue_manager, name="ExecutorManagerThread")
    thread.start()
    try:
        # raise_signal, not os.kill: it signals this (the main) thread, so the sleep is cut short
        # at once; a process-directed kill may land on the other thread, and on a loaded machine
        # the main thread then sleeps on until the pool thread's own timeout
        signal.raise_signal(signal.{sig})
        time.sleep(10)
    finally:
        thread.join()
    return 0

play.run = run
sys.exit(cli.main(["play", "dtd", "random", "random"]))
"""


@pytest.mark.parametrize(
    "sig, status, message",
    [("SIGINT", 130, "fsmarena: interrupted"), ("SIGTERM", 143, "fsmarena: terminated")],
)
def test_a_pool_thread_failing_during_an_interrupt_adds_nothing_to_the_one_line(tmp_path, sig, status, message):
    done = subprocess.run(
        [sys.executable, "-P", "-c", _POOL_THREAD_FAILS_ON_INTERRUPT.format(sig=sig)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_ctrl_c_as_from_a_terminal,
    )
    assert done.returncode == status, done.stderr
    assert done.stderr.strip() == message


@pytest.mark.slow
def test_workers_do_not_import_from_the_working_directory(tmp_path):
    marker = tmp_path / "executed"
    (tmp_path / "numpy.py").write_text(f"open({str(marker)!r}, 'w').write('x')\nraise SystemExit('evil')\n")
    done = run_bounded(
        ["play", "dtd", "random", "random", "--games", "20000", "--jobs", "2", "--quiet"], tmp_path, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert not marker.exists()


def _ignores_ctrl_c(pid: int) -> bool:
    """Whether process ``pid`` ignores SIGINT now (Linux: the ``SigIgn`` mask of
    ``/proc/PID/status``), as fsmarena does while it starts a pool (fsmarena.parallel)."""
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) >> (signal.SIGINT - 1) & 1)
    raise AssertionError(f"no SigIgn line for process {pid}")


def _signal_once_started(process: subprocess.Popen, tmp_path: Path, sig: int, command: str) -> list[int]:
    """Send ``sig`` once the run's two workers exist and the run has finished starting them
    (it no longer ignores Ctrl-C, which it does while a pool starts: a signal then would be
    lost, by design), and with dask once a generation is logged; returns the workers' process
    ids.  Conditions the run shows, not a fixed wait: under load, starting takes any time."""
    import psutil

    deadline = time.monotonic() + 120

    def started() -> bool:
        if len(psutil.Process(process.pid).children(recursive=True)) < 2 or _ignores_ctrl_c(process.pid):
            return False
        return command != "evolve-dask" or (tmp_path / "evo" / "logbook.csv").exists()

    while not started():
        assert process.poll() is None, "the run ended before it was signalled"
        assert time.monotonic() < deadline, "the workers never started"
        time.sleep(0.05)
    children = [c.pid for c in psutil.Process(process.pid).children(recursive=True)]
    if sig == signal.SIGINT:
        os.killpg(process.pid, sig)  # as a terminal's Ctrl-C: the whole foreground group
    else:
        process.send_signal(sig)
    return children


@pytest.mark.slow
@pytest.mark.parametrize(
    "sig, status, message",
    [
        (signal.SIGINT, 130, "fsmarena: interrupted"),
        (signal.SIGTERM, 143, "fsmarena: terminated"),
        (signal.SIGKILL, -signal.SIGKILL, None),
    ],
    ids=["sigint", "sigterm", "sigkill"],
)
@pytest.mark.parametrize("command", ["play", "evolve", "evolve-dask"])
def test_signals_with_two_jobs_end_cleanly_and_leave_no_worker(tmp_path, sig, status, message, command):

    evolve = ["evolve", "dtd", "--genome", "fsm", "--protocol", "round-robin", "--population", "30"]
    evolve += ["--games-per-pair", "200", "--generations", "100000", "--quiet", "--out", str(tmp_path / "evo")]
    argv = {
        "play": ["play", "dtd", "random", "random", "--games", "500000000", "--jobs", "2", "--quiet"],
        "evolve": [*evolve, "--jobs", "2"],
        "evolve-dask": [*evolve, "--dask", "local"],  # a LocalCluster's two worker processes
    }[command]
    process = subprocess.Popen(
        [*FSMARENA, *argv],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_ctrl_c_as_from_a_terminal,
    )
    try:
        children = _signal_once_started(process, tmp_path, sig, command)
        _, err = process.communicate(timeout=60)
    finally:  # a failed check must not leave a run of 100,000 generations behind
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == status, err
    if message:
        assert err.strip() == message
    deadline = time.monotonic() + 20
    while _alive(children) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _alive(children) == [], "orphaned worker processes"
    if command != "play" and sig != signal.SIGKILL:  # after SIGKILL the next run removes them
        assert not [p for p in (tmp_path / "evo").rglob("*.tmp-*")]  # no half-written file left


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.0, 0.05, 0.1, 0.2, 0.4])
def test_ctrl_c_while_the_workers_start_is_one_line(tmp_path, delay):
    """A Ctrl-C while loky workers were still importing printed their own KeyboardInterrupt
    tracebacks (18 lines each) before "fsmarena: interrupted", or interrupted this process
    half-way through starting the pool ("cannot join thread before it is started").  The
    workers now start with SIGINT ignored; a Ctrl-C in the fraction of a second the pool takes
    to start is ignored too, and a second one stops the run."""
    import psutil

    argv = ["play", "dtd", "random", "random", "--games", "500000000", "--jobs", "2", "--quiet"]
    process = subprocess.Popen(
        [*FSMARENA, *argv],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_ctrl_c_as_from_a_terminal,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            commands = [" ".join(child.cmdline()) for child in psutil.Process(process.pid).children(recursive=True)]
            if any("loky" in command and "resource_tracker" not in command for command in commands):
                break
            time.sleep(0.002)
        time.sleep(delay)
        os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole foreground group
        try:
            _, err = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # it came while the pool started: pressed again
            os.killpg(process.pid, signal.SIGINT)
            _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, err
    assert err.strip() == "fsmarena: interrupted"
