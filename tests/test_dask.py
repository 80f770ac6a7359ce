"""Scale-out on dask.distributed: every parallel command gives bit-identical results on a
LocalCluster of worker processes and with ``--jobs 1``; clear errors otherwise."""

from __future__ import annotations

import csv
import re
import sys
import time
from pathlib import Path

import pytest

from fsmarena import allocator
from fsmarena.cli import main
from fsmarena.errors import FsmarenaError
from fsmarena.extras import install_hint
from fsmarena.parallel import MALLOC_TRIM, _malloc_trim_setting, iter_tasks, local_cluster, run_tasks, use_dask

distributed = pytest.importorskip("dask.distributed")
#: a local cluster of worker processes per test: process-level, like the other slow tests
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def scheduler():
    """One LocalCluster (2 single-threaded worker processes) shared by this module's tests."""
    cluster = local_cluster(2)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def run(*argv: str) -> None:
    assert main([*argv, "--quiet"]) == 0


def read(path: Path) -> bytes:
    return path.read_bytes()


def without_column(path: Path, column: str) -> list[dict]:
    with open(path) as handle:
        return [{k: v for k, v in row.items() if k != column} for row in csv.DictReader(handle)]


def test_tournament_on_a_cluster_is_bit_identical(tmp_path, scheduler, capsys):
    players = ["random", "always-small", "always-median", "always-large"]
    for name, extra in (("serial", ["--jobs", "1"]), ("dask", ["--dask", scheduler])):
        run("tournament", "dtd", *players, "--games", "60000", "--seed", "21", "--out", str(tmp_path / name), *extra)
    for f in ("tournament.json", "results.csv", "matrix.csv"):
        assert read(tmp_path / "serial" / f) == read(tmp_path / "dask" / f)


def test_evolve_on_a_cluster_is_bit_identical(tmp_path, scheduler, capsys):
    args = [
        "evolve",
        "dtd",
        "--genome",
        "fsm",
        "--protocol",
        "round-robin",
        "--generations",
        "4",
        "--population",
        "8",
        "--games-per-pair",
        "4",
        "--seed",
        "3",
        "--chunk",
        "64",
    ]
    run(*args, "--jobs", "1", "--out", str(tmp_path / "serial"))
    run(*args, "--dask", scheduler, "--out", str(tmp_path / "dask"))
    for f in ("best.json", "population.json"):
        assert read(tmp_path / "serial" / f) == read(tmp_path / "dask" / f)
    assert without_column(tmp_path / "serial" / "logbook.csv", "seconds") == without_column(
        tmp_path / "dask" / "logbook.csv", "seconds"
    )


def test_train_on_a_cluster_is_bit_identical(tmp_path, scheduler, capsys):
    args = [
        "train",
        "dtd",
        "--algo",
        "q-learning",
        "--episodes",
        "20000",
        "--batch",
        "2000",
        "--eval-every",
        "10000",
        "--eval-games",
        "20000",
        "--eval-panel",
        "random",
        "always-large",
        "--seed",
        "5",
    ]
    run(*args, "--jobs", "1", "--out", str(tmp_path / "serial"))
    run(*args, "--dask", scheduler, "--out", str(tmp_path / "dask"))
    assert read(tmp_path / "serial" / "policy.json") == read(tmp_path / "dask" / "policy.json")
    assert read(tmp_path / "serial" / "curve.csv") == read(tmp_path / "dask" / "curve.csv")


@pytest.mark.slow
def test_study_on_a_cluster_is_bit_identical(tmp_path, scheduler, capsys):
    for name, extra in (("serial", ["--jobs", "1"]), ("dask", ["--dask", scheduler])):
        run("study", "dtd-thesis", "--scale", "test", "--no-figures", "--out", str(tmp_path / name), *extra)
    tables = sorted(p.name for p in (tmp_path / "serial" / "tables").iterdir() if p.name != "timing.csv")
    assert tables
    for name in tables:
        assert read(tmp_path / "serial" / "tables" / name) == read(tmp_path / "dask" / "tables" / name), name


class CountedPickles:
    """Shared data that counts how often this process pickles it."""

    pickled = 0

    def __init__(self, offset: int):
        self.offset = offset

    def __getstate__(self):
        type(self).pickled += 1
        return self.__dict__


def add_offset(shared: CountedPickles, task: int) -> int:
    return shared.offset + task * task


def test_shared_data_is_scattered_once_and_results_keep_task_order(scheduler):
    tasks = list(range(24))
    expected = [7 + t * t for t in tasks]
    assert run_tasks(add_offset, tasks, shared=CountedPickles(7)) == expected  # serially: no pickling
    with use_dask(scheduler):
        for ordered in (True, False):
            CountedPickles.pickled = 0
            arrived = list(iter_tasks(add_offset, tasks, shared=CountedPickles(7), ordered=ordered))
            # a few pickles per call (hashing, scattering), not one per task (24)
            assert 0 < CountedPickles.pickled <= 4
            assert dict(arrived) == dict(enumerate(expected)) and len(arrived) == len(tasks)
            if ordered:
                assert [index for index, _ in arrived] == sorted(range(len(tasks)))
        assert run_tasks(add_offset, tasks, shared=CountedPickles(7)) == expected


def test_workers_run_without_the_slow_malloc_setting_and_a_cluster_with_it_is_flagged(scheduler, monkeypatch, capsys):
    with use_dask(scheduler) as client:
        assert set(client.run(_malloc_trim_setting).values()) == {None}
        assert set(client.run(allocator.active).values()) == {True}  # fsmarena.allocator, set by use_dask
    assert "warning" not in capsys.readouterr().err
    # a cluster started with dask's defaults sets it in its workers (and in this process)
    monkeypatch.delenv(MALLOC_TRIM, raising=False)  # restored (absent) after the test
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as other:
        with use_dask(other.scheduler_address) as client:
            assert set(client.run(_malloc_trim_setting).values()) == {"65536"}
            assert set(client.run(allocator.active).values()) == {False}  # a setting of the user's: left alone
    err = capsys.readouterr().err
    assert err.count(f"fsmarena: warning: the dask workers run with {MALLOC_TRIM}=65536") == 1


def test_the_documented_worker_configuration_removes_the_slow_malloc_setting():
    import dask
    import yaml
    from distributed.nanny import _get_env_variables

    key = "distributed.nanny.pre-spawn-environ"
    assert MALLOC_TRIM in _get_env_variables(key)  # dask's default, which the file must undo
    config = yaml.safe_load((Path(__file__).parent.parent / "docs" / "dask-workers.yaml").read_text())
    with dask.config.set(dask.config.merge(dask.config.config, config)):
        environ = _get_env_variables(key)
    assert MALLOC_TRIM not in environ and environ["OPENBLAS_NUM_THREADS"] == "1"


def test_local_keyword_and_environment_variable(tmp_path, capsys, monkeypatch):
    players = ["random", "always-large"]
    run("tournament", "dtd", *players, "--games", "20000", "--out", str(tmp_path / "serial"))
    monkeypatch.setenv("FSMARENA_DASK", "local")
    run("tournament", "dtd", *players, "--games", "20000", "--out", str(tmp_path / "env"))
    assert read(tmp_path / "serial" / "results.csv") == read(tmp_path / "env" / "results.csv")


def test_unreachable_scheduler_is_a_clear_error():
    start = time.monotonic()
    with pytest.raises(FsmarenaError, match="cannot reach the dask scheduler"):
        with use_dask("tcp://127.0.0.1:9", timeout="2s"):
            pass
    assert time.monotonic() - start < 60


def test_missing_distributed_package_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(FsmarenaError, match=re.escape(install_hint("distributed"))):
        with use_dask("local"):
            pass


@pytest.mark.slow
def test_study_speedup_benchmark_is_opt_in_and_checks_identical_tables(capsys, tmp_path, monkeypatch):
    import json
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert main(["bench", "dtd", "--case", "study speed-up (test", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert len(results) == 1 and results[0]["unit"] == "studies"
    assert results[0]["ratio"] > 0
    # the two studies' folder is removed once they are compared; scales not asked for make none
    assert list(tmp_path.glob("fsmarena-scaling-*")) == []


def test_shared_data_gets_a_key_of_its_own_per_call():
    """dask names scattered data by content: equal shared data in two calls in a row must not
    share one key, or the first call's release races the second's use ("lost dependencies")."""
    from dask.base import tokenize

    from fsmarena.parallel import ScatteredOnce

    data = {"game": "dtd", "table": list(range(10))}
    assert tokenize(ScatteredOnce(data)) != tokenize(ScatteredOnce(data))
    assert tokenize(data) == tokenize(dict(data))  # what happened without the wrapper


def test_equal_shared_data_in_calls_in_a_row_on_a_cluster(scheduler):
    shared = (3, 4)
    with use_dask(scheduler):
        for _ in range(6):
            assert run_tasks(_scaled, list(range(8)), shared=shared) == [3 * t + 4 for t in range(8)]


def _scaled(shared, task):
    a, b = shared
    return a * task + b
