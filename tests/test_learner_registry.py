"""The learner registry (fsmarena/rl/registry.py): every learner declared once, read by train and its CLI."""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys

import numpy as np
import pytest
from cli_helpers import run_cli

from fsmarena.cli import build_parser
from fsmarena.commands import train as train_command
from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.registry import resolve
from fsmarena.rl import registry
from fsmarena.rl.train import TrainConfig, train

GENERAL = {"game", "param", "algo", "seed", "jobs", "dask", "out", "json", "quiet", "resume", "help"}


def train_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["train"]


def test_the_registry_is_well_formed_and_every_algorithm_carries_its_pseudocode():
    registry.check_registry()
    assert len(set(registry.names())) == len(registry.LEARNERS)
    for item in registry.learners("sample", "model", "search"):
        target = resolve(item.target, item.name)
        doc = target.__doc__ or ""
        assert "Pseudocode" in doc and "::" in doc.split("Pseudocode", 1)[1], item.name
        if item.kind != "search":
            assert callable(target.validate), item.name
        if item.kind == "sample":  # and its compiled update, one function of its own
            update = getattr(resolve(item.update, item.name), "py_func", None)
            doc = (update.__doc__ or "") if update else ""
            assert "Pseudocode" in doc and "::" in doc.split("Pseudocode", 1)[1], item.name


def test_a_malformed_registry_is_a_programming_error(monkeypatch):
    twin = registry.LEARNERS[0]
    monkeypatch.setattr(registry, "LEARNERS", registry.LEARNERS + (twin,))
    with pytest.raises(TypeError, match="share a name"):
        registry.check_registry()
    odd = dataclasses.replace(twin, name="odd", kind="oracle")
    monkeypatch.setattr(registry, "LEARNERS", (odd,))
    with pytest.raises(TypeError, match="unknown kind"):
        registry.check_registry()
    monkeypatch.setattr(registry, "LEARNERS", (dataclasses.replace(twin, update=""),))
    with pytest.raises(TypeError, match="names no compiled update"):
        registry.check_registry()


def test_an_unknown_name_lists_the_known_ones():
    with pytest.raises(
        FsmarenaError, match=r"unknown algorithm 'td\(0\)' \(known: value-iteration, policy-iteration\)"
    ):
        registry.learner("td(0)", "model")


def test_the_train_command_passes_on_exactly_the_options_its_parser_declares():
    """Every option of ``fsmarena train`` but the general ones is a setting some registered
    learner takes, and every such setting is an option: a learner cannot declare a setting the
    command line does not offer, nor the command line offer one no learner declares."""
    declared = {a.dest for a in train_parser()._actions} - GENERAL
    assert declared == set(train_command.OPTIONS)
    assert set(train_command.OPTIONS) | {"resume"} == set(registry.option_names())


def test_the_help_names_every_learner_train_runs(capsys):
    help_text = train_parser().format_help()
    flat = "".join(help_text.split())  # argparse wraps lines at hyphens
    for name in registry.names("sample", "model", "network"):
        assert name in flat, name


def twin_of(name: str, twin: str, **changes) -> registry.LearnerEntry:
    return dataclasses.replace(registry.learner(name), name=twin, summary="a second name", **changes)


def test_a_learner_added_by_one_registry_line_trains_like_the_one_it_copies(monkeypatch):
    """The registry line is all a new learner needs: a second name for SARSA trains (batched
    algorithm, no compiled code of its own) to exactly SARSA's tables."""
    monkeypatch.setattr(registry, "LEARNERS", registry.LEARNERS + (twin_of("sarsa", "sarsa-twin"),))
    game = get_game("dtd")
    settings = dict(episodes=400, batch=4, eval_every=200, eval_games=200)
    twin = train(game, TrainConfig(algo="sarsa-twin", **settings), seed=3)
    sarsa = train(game, TrainConfig(algo="sarsa", **settings), seed=3)
    assert np.array_equal(twin.q, sarsa.q) and np.array_equal(twin.counts, sarsa.counts)
    assert np.array_equal(twin.policy.table, sarsa.policy.table)
    assert twin.config.algo == "sarsa-twin"
    assert "sarsa-twin" in "".join(train_parser().format_help().split())


def test_the_settings_a_learner_declares_are_the_ones_it_is_given(monkeypatch):
    """Settings come from the learner's line: one it does not declare is refused by name."""
    narrow = twin_of("q-learning", "q-narrow", settings=("episodes", "batch", "eval_every", "eval_games"))
    monkeypatch.setattr(registry, "LEARNERS", registry.LEARNERS + (narrow,))
    game = get_game("dtd")
    TrainConfig(algo="q-narrow", episodes=100, batch=2).resolved(game, given=["episodes", "batch"])
    with pytest.raises(FsmarenaError, match="--epsilon is only used by .*, not q-narrow"):
        TrainConfig(algo="q-narrow", episodes=100, batch=2, epsilon=0.3).resolved(game, given=["episodes", "epsilon"])


def test_each_learner_validates_its_own_step_size_rule(monkeypatch):
    """The step-size rule is the learner's: Monte Carlo's running mean refuses a step size, and
    a TD learner registered as needing one refuses ``1/n``."""
    game = get_game("dtd")
    with pytest.raises(FsmarenaError, match="mc averages returns"):
        TrainConfig(algo="mc", episodes=100, alpha=0.1).resolved(game)
    with pytest.raises(FsmarenaError, match="mc-constant-alpha needs a numeric alpha"):
        TrainConfig(algo="mc-constant-alpha", episodes=100, alpha="1/n").resolved(game)
    TrainConfig(algo="sarsa", episodes=100, alpha="1/n").resolved(game)
    monkeypatch.setattr(registry, "LEARNERS", registry.LEARNERS + (twin_of("sarsa", "sarsa-step", step="size"),))
    with pytest.raises(FsmarenaError, match="sarsa-step needs a numeric alpha"):
        TrainConfig(algo="sarsa-step", episodes=100, alpha="1/n").resolved(game)
    with pytest.raises(FsmarenaError, match="tolerance must be a small positive number"):
        TrainConfig(algo="value-iteration", tolerance=2.0).resolved(get_game("421"))


def test_a_learner_of_another_command_is_sent_there(capsys, tmp_path):
    code, _out, err = run_cli(capsys, "train", "dtd", "--algo", "policy-search", "--out", tmp_path / "o")
    assert code == 2 and "policy-search is run by 'fsmarena search'" in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_an_agent_option_to_a_tabular_learner_is_one_line(capsys, tmp_path):
    code, out, err = run_cli(
        capsys, "train", "dtd", "--algo", "q-learning", "--episodes", "10", "--epochs", "2", "--out", tmp_path / "o"
    )
    assert code == 2 and "--epochs is an option of the network learner" in err and not (tmp_path / "o").exists()


def test_building_the_command_line_imports_no_learner():
    """``fsmarena train --help`` reads the registry's names only: no learner, planner or engine."""
    script = (
        "import sys\n"
        "from fsmarena.cli import build_parser\n"
        "build_parser()\n"
        "loaded = [m for m in ('fsmarena.rl.train', 'fsmarena.rl.learners', 'fsmarena.rl.planning', 'fsmarena.rl.network', 'fsmarena.rl.network_training', 'fsmarena.games.thirtyone.agent') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
