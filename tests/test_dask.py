"""Scale-out on dask.distributed: every parallel command gives bit-identical results on a
LocalCluster of worker processes and with ``--jobs 1``; clear errors otherwise."""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

import pytest

from fsmarena.cli import main
from fsmarena.errors import FsmarenaError
from fsmarena.parallel import use_dask

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def scheduler():
    """One LocalCluster (2 single-threaded worker processes) shared by this module's tests."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
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
    args = ["evolve", "dtd", "--genome", "fsm", "--protocol", "round-robin", "--generations", "4",
            "--population", "8", "--games-per-pair", "4", "--seed", "3", "--chunk", "64"]
    run(*args, "--jobs", "1", "--out", str(tmp_path / "serial"))
    run(*args, "--dask", scheduler, "--out", str(tmp_path / "dask"))
    for f in ("best.json", "population.json"):
        assert read(tmp_path / "serial" / f) == read(tmp_path / "dask" / f)
    assert (without_column(tmp_path / "serial" / "logbook.csv", "seconds")
            == without_column(tmp_path / "dask" / "logbook.csv", "seconds"))


def test_train_on_a_cluster_is_bit_identical(tmp_path, scheduler, capsys):
    args = ["train", "dtd", "--algo", "q-learning", "--episodes", "20000", "--batch", "2000",
            "--eval-every", "10000", "--eval-games", "20000", "--eval-panel", "random", "always-large",
            "--seed", "5"]
    run(*args, "--jobs", "1", "--out", str(tmp_path / "serial"))
    run(*args, "--dask", scheduler, "--out", str(tmp_path / "dask"))
    assert read(tmp_path / "serial" / "policy.json") == read(tmp_path / "dask" / "policy.json")
    assert read(tmp_path / "serial" / "curve.csv") == read(tmp_path / "dask" / "curve.csv")


def test_study_on_a_cluster_is_bit_identical(tmp_path, scheduler, capsys):
    for name, extra in (("serial", ["--jobs", "1"]), ("dask", ["--dask", scheduler])):
        run("study", "dtd-thesis", "--scale", "test", "--no-figures", "--out", str(tmp_path / name), *extra)
    tables = sorted(p.name for p in (tmp_path / "serial" / "tables").iterdir() if p.name != "timing.csv")
    assert tables
    for name in tables:
        assert read(tmp_path / "serial" / "tables" / name) == read(tmp_path / "dask" / "tables" / name), name


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
    with pytest.raises(FsmarenaError, match=r"fsmarena\[distributed\]"):
        with use_dask("local"):
            pass


def test_study_speedup_benchmark_is_opt_in_and_checks_identical_tables(capsys):
    import json

    assert main(["bench", "dtd", "--case", "study speed-up (test", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert len(results) == 1 and results[0]["unit"] == "studies"
    assert results[0]["ratio"] > 0
