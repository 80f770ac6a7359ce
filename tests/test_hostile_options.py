"""Hostile options and re-runs: nothing replaced or trusted silently.

Three causes, each with a generated corpus that fails if the cause comes back:

* options that do not apply are refused by their owner (learning algorithm, genome, protocol),
  on the command line and in a study file, even where every scale overrides them;
* ``search`` refuses a folder holding an earlier search, whatever its game (as ``evolve`` and
  ``train`` refuse one holding a run);
* a study re-run validates the player files it reuses: a damaged one is written again from
  its result file, or refused in one line when no file can be written there.

The expectations (which option belongs to whom) are written out here as the specification,
independently of the tables the code declares, and the command-line options are read from the
parsers, so an option added later is covered (or must be classified here).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from fsmarena.cli import build_parser
from fsmarena.errors import FsmarenaError
from fsmarena.evo.run import EvolveConfig
from fsmarena.games import get_game
from fsmarena.outdir import CONTROL_FILES
from fsmarena.rl.config import ALGORITHMS, MODEL_BASED, TrainConfig
from fsmarena.studies.catalogue import load_study_toml
from fsmarena.studies.competitors import check_competitors
from tests.cli_helpers import cli, run_cli
from tests.hostile_helpers import builtin_study

# ---- the specification ---------------------------------------------------------------------------

#: options of ``fsmarena train`` and ``evolve`` that are not settings of an algorithm, genome or protocol
GENERAL = {"game", "param", "algo", "genome", "protocol", "seed", "jobs", "dask", "out", "json", "quiet"}
#: the neural agent's own options (refused for the tabular algorithms by their own check)
NEURAL = {"hidden", "learning_rate", "epochs"}
#: what the planners use: they consume no game, so no budget, opponent, exploration or checkpoint
PLANNER_TAKES = {
    "value-iteration": {"gamma", "tolerance", "eval_games", "eval_panel"},
    "policy-iteration": {"gamma", "eval_games", "eval_panel"},
}
#: the one train option no learner from simulated games uses
LEARNER_REFUSES = {"tolerance"}
#: a valid value of every option of ``fsmarena train`` (None: a flag)
TRAIN_VALUES = {
    "episodes": "100",
    "batch": "10",
    "epsilon": "0.1",
    "epsilon_final": "0",
    "epsilon_schedule": "linear",
    "alpha": "0.1",
    "alpha_final": "0",
    "alpha_schedule": "linear",
    "gamma": "0.9",
    "explore_steps": "1",
    "q_init": "0",
    "learner_seat": "0",
    "self_play_every": "10",
    "eval_every": "10",
    "eval_schedule": "log",
    "eval_points": "4",
    "eval_games": "10",
    "eval_panel": "random",
    "opponent": "random",
    "tolerance": "1e-9",
    "checkpoint_seconds": "5",
    "reward": "game",
    "resume": None,
}
#: evolution options used by some genomes or protocols only, and who uses them
GENOME_ONLY = {"inputs": {"fsm"}, "max_tests": {"bda"}}
PROTOCOL_ONLY = {
    "opponents": {"thesis"},
    "games_per_opponent": {"thesis"},
    "replaced": {"thesis"},
    "games_per_pair": {"round-robin", "panel", "score"},
    "elite": {"round-robin", "panel", "score"},
    "crossover_rate": {"round-robin", "panel", "score"},
    "panel": {"panel"},
    "panel_weight": {"panel"},
    "exact_fitness": {"score"},
}
#: evolution options every genome and protocol uses
EVOLVE_SHARED = {
    "generations",
    "population",
    "states",
    "tournament",
    "mutations",
    "mutation_rate",
    "hall_of_fame",
    "checkpoint_every",
    "curve_every",
    "curve_games",
    "chunk",
    "resume",
}
#: a valid value of each evolution option used by some only (the value of ``max_tests`` and
#: ``games_per_pair`` is their default: an option given at its default still does not apply)
EVOLVE_VALUES = {
    "inputs": "opp_last",
    "max_tests": "6",
    "opponents": "3",
    "games_per_opponent": "2",
    "replaced": "1",
    "games_per_pair": "20",
    "elite": "1",
    "crossover_rate": "0.5",
    "panel": "random",
    "panel_weight": "0.5",
    "exact_fitness": None,
}
GENOMES = ("fsm", "bda")
PROTOCOLS = ("thesis", "round-robin", "panel", "score")


def options_of(command: str) -> set[str]:
    """The destinations of every option of ``fsmarena COMMAND``, read from its parser."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest for a in sub.choices[command]._actions if a.dest != "help"}


def argv(name: str, value: str | None) -> list[str]:
    flag = "--" + name.replace("_", "-")
    return [flag] if value is None else [flag, value]


def assert_refused(capsys, command: list, out: Path, words: list[str]) -> None:
    """One line on stderr naming ``words``, exit status 2, and no output folder."""
    code, stdout, err = run_cli(capsys, *command, "--out", out, "--quiet")
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("fsmarena: error:") and "Traceback" not in err, err
    assert all(word in err for word in words), err
    assert stdout == "" and not out.exists()


def test_every_train_and_evolve_option_is_classified():
    """A new option must be placed in the tables above (else the corpus would skip it)."""
    assert options_of("train") == GENERAL - {"genome", "protocol"} | NEURAL | set(TRAIN_VALUES)
    assert options_of("evolve") == GENERAL - {"algo"} | EVOLVE_SHARED | set(GENOME_ONLY) | set(PROTOCOL_ONLY)
    assert set(EVOLVE_VALUES) == set(GENOME_ONLY) | set(PROTOCOL_ONLY)


# ---- cause 14: options that do not apply, command line ---------------------------------------------


def _train_refusals() -> list[tuple[str, str]]:
    cases = []
    for algo in ALGORITHMS:
        takes = PLANNER_TAKES.get(algo, set(TRAIN_VALUES) - LEARNER_REFUSES)
        cases += [(algo, name) for name in sorted(set(TRAIN_VALUES) - takes)]
    return cases


@pytest.mark.parametrize("algo, name", _train_refusals())
def test_a_train_option_the_algorithm_does_not_use_is_one_line_and_no_folder(capsys, tmp_path, algo, name):
    game = "421" if algo in MODEL_BASED else "dtd"
    extra = [] if algo in MODEL_BASED or name == "episodes" else ["--episodes", "100"]
    command = ["train", game, "--algo", algo, *extra, *argv(name, TRAIN_VALUES[name])]
    flag = "--" + name.replace("_", "-")
    assert_refused(capsys, command, tmp_path / "out", [flag, "is only used by", f"not {algo}"])


@pytest.mark.parametrize("algo", ALGORITHMS)
def test_every_setting_an_algorithm_uses_is_accepted(algo):
    """The other direction: no setting the specification gives an algorithm is refused (a final
    value with the schedule that uses it: alone, it is refused when the schedule is constant,
    see tests/test_hostile_schedules.py)."""
    game = get_game("421")
    takes = PLANNER_TAKES.get(algo, set(TRAIN_VALUES) - LEARNER_REFUSES)
    config = TrainConfig(algo=algo) if algo in MODEL_BASED else TrainConfig(algo=algo, episodes=100)
    for name in takes:
        if name == "alpha_final" and config.resolved(game).alpha == "1/n":  # no step size, no schedule
            with pytest.raises(FsmarenaError, match="--alpha-final"):
                config.resolved(game, given=[name])
        elif name.endswith("_final"):
            schedule = name.replace("_final", "_schedule")
            step = {"alpha": 0.1} if name == "alpha_final" else {}
            replace(config, **step, **{schedule: "linear"}).resolved(game, given=[name, schedule, *step])
        else:
            config.resolved(game, given=[name])


def test_a_changed_setting_is_refused_through_the_python_api_too():
    """Without the names of the given options, a setting changed from its default counts as given."""
    with pytest.raises(FsmarenaError, match="--tolerance is only used by value-iteration, not q-learning"):
        TrainConfig(algo="q-learning", episodes=100, tolerance=-5.0).resolved(get_game("dtd"))
    with pytest.raises(FsmarenaError, match="--max-tests is only used by the bda genome, not fsm"):
        EvolveConfig(genome="fsm", protocol="round-robin", max_tests=3).resolved()
    with pytest.raises(FsmarenaError, match="--opponents is only used by the thesis protocol, not panel"):
        EvolveConfig(genome="bda", protocol="panel", panel=("random",), opponents=4).resolved()
    resolved = TrainConfig(algo="q-learning", episodes=100).resolved(get_game("dtd"))
    assert resolved.resolved(get_game("dtd")) == resolved  # defaults filled in are not "given"
    evolved = EvolveConfig(genome="fsm", protocol="thesis").resolved()
    assert evolved.resolved() == evolved


def _evolve_refusals() -> list[tuple[str, str, str]]:
    cases = []
    for name, users in GENOME_ONLY.items():
        cases += [(genome, "round-robin", name) for genome in GENOMES if genome not in users]
    for name, users in PROTOCOL_ONLY.items():
        cases += [("fsm", protocol, name) for protocol in PROTOCOLS if protocol not in users]
    return cases


@pytest.mark.parametrize("genome, protocol, name", _evolve_refusals())
def test_an_evolve_option_the_genome_or_protocol_does_not_use_is_one_line(capsys, tmp_path, genome, protocol, name):
    game = "421" if protocol == "score" else "dtd"
    panel = ["--panel", "random"] if protocol == "panel" and name != "panel" else []
    command = ["evolve", game, "--genome", genome, "--protocol", protocol, *panel, *argv(name, EVOLVE_VALUES[name])]
    flag = "--" + name.replace("_", "-")
    owner = genome if name in GENOME_ONLY else protocol
    assert_refused(capsys, command, tmp_path / "out", [flag, "is only used by", f"not {owner}"])


def test_games_per_pair_does_not_apply_to_exact_fitness(capsys, tmp_path):
    command = ["evolve", "421", "--genome", "fsm", "--protocol", "score", "--states", "1", "--exact-fitness"]
    assert_refused(capsys, [*command, "--games-per-pair", "5"], tmp_path / "out", ["--games-per-pair", "exact"])


# ---- cause 14: options that do not apply, and values no scale reads, in a study file ----------------

STUDY = """
name = "options"
version = 1
game = "dtd"
seed = 1
panel = ["random"]

[[competitors]]
name = "learner"
method = "train"
params = {{ algo = "q-learning", episodes = 1000, eval_games = 50{learner} }}

[[competitors]]
name = "evolved"
method = "evolve"
params = {{ genome = "fsm", protocol = "round-robin", population = 4, games_per_pair = 2{evolved} }}

[scales.test]
replicates = 1
panel_games = 50
crossplay_halfwidth = 0.4
[scales.test.budgets]
evolved = {{ generations = 1{test_budget} }}
learner = {{ episodes = 24 }}

[scales.paper]
replicates = 1
panel_games = 50
crossplay_halfwidth = 0.4
[scales.paper.budgets]
evolved = {{ generations = 2{paper_budget} }}
learner = {{ episodes = 48 }}
"""
#: what each mistake may be: in the learner's or the evolution's params, or in one scale's budgets
STUDY_MISTAKES = [
    ("learner", ", tolerance = 1e-9", "--tolerance is only used by value-iteration"),
    ("learner", ", tolerance = 1e-12", "--tolerance is only used by value-iteration"),  # at its default
    ("evolved", ", max_tests = 6", "--max-tests is only used by the bda genome"),
    ("evolved", ", opponents = 3", "--opponents is only used by the thesis protocol"),
    ("evolved", ", panel_weight = 0.5", "--panel-weight is only used by the panel protocol"),
    ("evolved", ", generations = -3", "--generations must be a positive whole number"),  # every scale overrides
    ("evolved", ", generations = 1979-05-27", "TOML date"),  # every scale overrides
    ("evolved", ", chunk = 1979-05-27T07:32:00Z", "TOML date"),
    ("evolved", ", panel = [07:32:00]", "TOML date"),
    ("paper_budget", ", population = 1", "scale 'paper'"),  # a scale this run does not use
    ("paper_budget", ", max_tests = 2", "--max-tests is only used by the bda genome"),
    ("test_budget", ", crossover_rate = 1979-05-27", "TOML date"),
]


@pytest.mark.parametrize("where, text, words", STUDY_MISTAKES)
def test_every_competitor_setting_of_a_study_file_is_checked_before_anything(capsys, tmp_path, where, text, words):
    """At the test scale: the params a scale overrides and the other scales' budgets are checked
    as well as what this run reads; one line, before the study's folder exists."""
    slots = {"learner": "", "evolved": "", "test_budget": "", "paper_budget": ""}
    study = tmp_path / "options.toml"
    study.write_text(STUDY.format(**{**slots, where: text}))
    assert_refused(capsys, ["study", study, "--scale", "test"], tmp_path / "out", [words])


def test_the_study_without_mistakes_is_accepted(tmp_path):
    """The corpus's control: the same file with no mistake passes every check."""
    path = tmp_path / "options.toml"
    path.write_text(STUDY.format(learner="", evolved="", test_budget="", paper_budget=""))
    study = load_study_toml(path)
    settings = check_competitors(study.plan("test"), get_game("dtd"))
    assert settings["evolved"]["generations"] == 1 and settings["learner"]["tolerance"] == 1e-12


# ---- cause 17: search never replaces an earlier search ---------------------------------------------


@pytest.fixture(scope="module")
def earlier_search(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("search") / "out"
    code, _ = cli("search", "dtd", "--opponent", "random", "--budget", "2000", "--out", out, "--quiet")
    assert code == 0
    return out


def _outputs(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name not in CONTROL_FILES}


@pytest.mark.parametrize(
    "keep, second",
    [
        (None, ["dtd", "--opponent", "random"]),  # the same search again
        (None, ["dtd", "--opponent", "always-small", "--seed", "3"]),
        (None, ["goofspiel", "--opponent", "random"]),  # another game
        ("policy.json", ["dtd", "--opponent", "random"]),  # a search killed before its summary
        ("search.json", ["goofspiel", "--opponent", "random"]),
    ],
)
def test_a_search_refuses_a_folder_holding_an_earlier_search(capsys, tmp_path, earlier_search, keep, second):
    out = tmp_path / "out"
    shutil.copytree(earlier_search, out)
    if keep is not None:
        for path in out.iterdir():
            if path.name not in CONTROL_FILES and path.name != keep:
                path.unlink()
    before = _outputs(out)
    code, stdout, err = run_cli(capsys, "search", *second, "--budget", "2000", "--out", out, "--quiet")
    assert code == 2 and err.count("\n") == 1 and "already holds a search" in err, err
    assert _outputs(out) == before


# ---- cause 18: a study re-run validates the player files it reuses ---------------------------------

REUSE = builtin_study("reuse")


@pytest.fixture(scope="module")
def finished_study(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("reuse")
    definition = root / "reuse.toml"
    definition.write_text(REUSE)
    out = root / "out"
    code, _ = cli("study", definition, "--scale", "test", "--out", out, "--no-figures", "--quiet")
    assert code == 0
    return definition, out


def _nested(path: Path) -> None:
    path.write_text("[" * 5000 + "]" * 5000)


def _nan(path: Path) -> None:
    data = json.loads(path.read_text())
    data["format_version"] = float("nan")
    path.write_text(json.dumps(data))


def _other_player(path: Path) -> None:  # a valid player, not the result's
    shutil.copyfile(path.parent.parent / "large" / "r000.json", path)


def _other_game(path: Path) -> None:
    path.write_text(path.read_text().replace('"game": "dtd"', '"game": "421"'))


#: damage -> what the re-run does: "restored" (written again from the result file) or "refused"
DAMAGES = {
    "missing": (lambda p: p.unlink(), "restored"),
    "empty": (lambda p: p.write_bytes(b""), "restored"),
    "truncated": (lambda p: p.write_bytes(p.read_bytes()[:40]), "restored"),
    "nan": (_nan, "restored"),
    "nested": (_nested, "restored"),
    "not-utf8": (lambda p: p.write_bytes(b"\xff\xfe{}"), "restored"),
    "another-player": (_other_player, "restored"),
    "another-game": (_other_game, "restored"),
    "link-to-dev-zero": (lambda p: (p.unlink(), p.symlink_to("/dev/zero")), "restored"),
    "link-to-a-folder": (lambda p: (p.unlink(), p.symlink_to(p.parent)), "restored"),
    "fifo": (lambda p: (p.unlink(), os.mkfifo(p)), "refused"),
    "folder": (lambda p: (p.unlink(), p.mkdir()), "refused"),
}


def _kept_files(out: Path) -> dict[str, bytes]:
    """players/ and replicates/, where regular files (the ones a re-run must not lose)."""
    return {
        str(p.relative_to(out)): p.read_bytes()
        for folder in ("players", "replicates")
        for p in sorted((out / folder).rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_study_rerun_validates_the_players_it_reuses(capsys, tmp_path, finished_study, damage):
    definition, finished = finished_study
    out = tmp_path / "out"
    shutil.copytree(finished, out, symlinks=True)
    target = out / "players" / "small" / "r000.json"
    original = target.read_bytes()
    before = _kept_files(out)
    change, outcome = DAMAGES[damage]
    change(target)
    code, stdout, err = run_cli(capsys, "study", definition, "--scale", "test", "--out", out, "--no-figures")
    if outcome == "restored":
        assert code == 0, err
        assert "r000.json was missing, damaged or not its result's player" in err
        assert target.is_file() and not target.is_symlink() and target.read_bytes() == original
        assert _kept_files(out) == before  # every result kept, no task recomputed
    else:
        assert code == 2 and err.count("\n") == 1 and "cannot write" in err and "r000.json" in err, err
        assert {k: v for k, v in _kept_files(out).items() if k != str(target.relative_to(out))} == {
            k: v for k, v in before.items() if k != str(target.relative_to(out))
        }


def test_an_intact_study_rerun_rewrites_no_player(capsys, tmp_path, finished_study):
    definition, finished = finished_study
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    stamps = {p: p.stat().st_mtime_ns for p in (out / "players").rglob("*.json")}
    code, _, err = run_cli(capsys, "study", definition, "--scale", "test", "--out", out, "--no-figures")
    assert code == 0 and "written again" not in err, err
    assert {p: p.stat().st_mtime_ns for p in (out / "players").rglob("*.json")} == stamps


@pytest.mark.parametrize("special", ["fifo", "folder"])
def test_a_task_to_recompute_with_an_unwritable_player_path_is_refused_before_any_work(
    capsys, tmp_path, finished_study, special
):
    """Its result file gone, the task must run again: a FIFO or a folder where its player file
    goes is refused in one line first, not after the training."""
    definition, finished = finished_study
    out = tmp_path / "out"
    shutil.copytree(finished, out)
    (out / "replicates" / "large" / "r000.json").unlink()
    player = out / "players" / "large" / "r000.json"
    player.unlink()
    os.mkfifo(player) if special == "fifo" else player.mkdir()
    code, _, err = run_cli(capsys, "study", definition, "--scale", "test", "--out", out, "--no-figures", "--quiet")
    assert code == 2 and err.count("\n") == 1 and "cannot write" in err and "large/r000.json" in err, err
    assert not (out / "replicates" / "large" / "r000.json").exists()
