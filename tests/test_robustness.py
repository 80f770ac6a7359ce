"""Holding up under hostile conditions, across the commands that keep state on disk:

* a disk that fills up (or a folder that stops being writable) in the middle of a run: one
  clear error line, exit status 2, and the previous checkpoint byte-for-byte intact;
* fuzzed checkpoint and study files (hypothesis over JSON structures and raw bytes): always a
  clean error or a clean recomputation, never a traceback and never code execution.
"""

from __future__ import annotations

import errno
import json
import os

import numpy as np
import pytest
from hostile_helpers import EVOLVE_BASE, assert_one_clear_line, files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsmarena.cli import main

EVOLVE = [*EVOLVE_BASE, "--checkpoint-every", "1"]
TRAIN = [
    "train",
    "dtd",
    "--algo",
    "q-learning",
    "--episodes",
    "4000",
    "--batch",
    "1000",
    "--eval-every",
    "2000",
    "--eval-games",
    "200",
    "--seed",
    "1",
    "--quiet",
]
STUDY = ["study", "dtd-thesis", "--scale", "test", "--no-figures", "--quiet"]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=25,
)
fuzz = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def run(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.err


def full_disk(monkeypatch):
    """Every atomic write fails at its last step, as on a full disk."""

    def no_space(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("fsmarena.fileio.os.replace", no_space)


@pytest.mark.parametrize(
    "command, first, second, checkpoint",
    [
        (EVOLVE, ["--generations", "2"], ["--generations", "4", "--resume"], "checkpoint.json"),
        (TRAIN, [], ["--resume"], "checkpoint.npz"),
    ],
)
def test_full_disk_is_a_clear_error_and_keeps_the_previous_checkpoint(
    tmp_path, capsys, monkeypatch, command, first, second, checkpoint
):
    out = tmp_path / "run"
    assert run(capsys, [*command, *first, "--out", str(out)])[0] == 0
    before = files(out)
    assert checkpoint in before
    full_disk(monkeypatch)
    code, err = run(capsys, [*command, *second, "--out", str(out)])
    assert_one_clear_line(code, err)
    assert "No space left on device" in err
    assert files(out) == before  # nothing replaced, no temporary file left behind
    monkeypatch.undo()
    assert run(capsys, [*command, *second, "--out", str(out)])[0] == 0  # and it resumes afterwards


@pytest.mark.slow
def test_full_disk_during_a_study_keeps_finished_results(tmp_path, capsys, monkeypatch):
    out = tmp_path / "study"
    assert run(capsys, [*STUDY, "--out", str(out)])[0] == 0
    before = files(out)
    (out / "report.md").unlink()
    full_disk(monkeypatch)
    code, err = run(capsys, [*STUDY, "--out", str(out)])
    assert_one_clear_line(code, err)
    after = files(out)
    assert after == {k: v for k, v in before.items() if k != "report.md"}


@fuzz
@given(value=json_values)
def test_fuzzed_evolution_checkpoints_are_refused_cleanly(tmp_path_factory, capsys, value):
    out = tmp_path_factory.mktemp("evo")
    (out / "checkpoint.json").write_text(json.dumps(value))
    before = files(out)
    code, err = run(capsys, [*EVOLVE, "--generations", "2", "--resume", "--out", str(out)])
    assert_one_clear_line(code, err)
    assert files(out) == before


@fuzz
@given(
    data=st.binary(max_size=300)
    | st.dictionaries(
        st.sampled_from(["format_version", "meta", "q", "counts", "rng", "curve", "x"]),
        st.lists(st.integers(-3, 3), max_size=6),
        max_size=5,
    )
)
def test_fuzzed_training_checkpoints_are_refused_cleanly(tmp_path_factory, capsys, data):
    out = tmp_path_factory.mktemp("rl")
    path = out / "checkpoint.npz"
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        with open(path, "wb") as handle:
            np.savez(handle, **{k: np.asarray(v) for k, v in data.items()})
    before = files(out)
    code, err = run(capsys, [*TRAIN, "--resume", "--out", str(out)])
    assert_one_clear_line(code, err)
    assert files(out) == before


def test_pickled_checkpoint_arrays_are_never_loaded(tmp_path, capsys):
    """An npz holding an object array (which would need pickle) is refused, not executed."""
    out = tmp_path / "rl"
    out.mkdir()
    with open(out / "checkpoint.npz", "wb") as handle:
        np.savez(handle, meta=np.array([{"a": 1}], dtype=object))
    code, err = run(capsys, [*TRAIN, "--resume", "--out", str(out)])
    assert_one_clear_line(code, err)


@pytest.fixture(scope="module")
def finished_study(tmp_path_factory):
    out = tmp_path_factory.mktemp("study") / "done"
    assert main([*STUDY, "--out", str(out)]) == 0
    return out


@pytest.mark.slow
@fuzz
@given(value=json_values, target=st.sampled_from(["study.json", "replicates/mc/r000.json", "replicates/bda/r001.json"]))
def test_fuzzed_study_files_give_a_clean_error_or_a_clean_recomputation(
    finished_study, tmp_path_factory, capsys, value, target
):
    import shutil

    out = tmp_path_factory.mktemp("fuzz") / "study"
    shutil.copytree(finished_study, out)
    reference = files(finished_study)
    (out / target).write_text(json.dumps(value))
    code, err = run(capsys, [*STUDY, "--out", str(out)])
    if code == 0:
        # a damaged result file is recomputed from its seed: the tables come out the same
        after = files(out)
        for name, content in reference.items():
            if name.startswith("tables/") and not name.endswith("timing.csv"):
                assert after[name] == content, name
    else:
        assert_one_clear_line(code, err)


@pytest.mark.parametrize(
    "number", [*(pytest.param(n, marks=pytest.mark.slow) for n in ("1e400", "1" + "0" * 400)), "NaN"]
)
def test_a_result_file_with_a_number_out_of_range_is_recomputed(finished_study, tmp_path, capsys, number):
    """Such numbers used to raise OverflowError past validation and stop the whole study; every
    reader now reports them as the project's error, so the replicate is recomputed."""
    import shutil

    out = tmp_path / "study"
    shutil.copytree(finished_study, out)
    target = out / "replicates" / "mc" / "r000.json"
    text = target.read_text()
    target.write_text(text.replace('"games": ', f'"games": {number}, "was": ', 1))
    code, err = run(capsys, [*STUDY, "--out", str(out)])
    assert code == 0, err
    timings = ("train_seconds", "panel_seconds", "cpu_seconds")
    recomputed, original = (
        {k: v for k, v in json.loads(t).items() if k not in timings} for t in (target.read_text(), text)
    )
    assert recomputed == original  # recomputed from its seed: the same result
