"""A sixth game added with no edit outside its folder: the template Nim folder (docs/examples/nim,
the game of docs/add-a-game.md) is written into a scratch directory and registered the one way a
game kept outside fsmarena is (the ``FSMARENA_GAMES`` variable naming its package), and then
plays, learns, evolves, refuses to solve (it declares no solver), renders its champion, runs its
study and shows its rules page, through the same contract tests every registered game inherits.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import test_declared_expectations as declared
import test_docs as docs
import test_every_game_commands as commands
import test_game_contract as contract
from cli_helpers import run_cli

import mkdocs_hooks
from fsmarena.games import get_game, registry
from fsmarena.games.registry import GAME_PACKAGES, GAMES_VARIABLE, entries, game_folder, game_names, register
from fsmarena.studies.catalogue import get_study, load_study_toml

TEMPLATE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "nim"


def _forget_nim() -> None:
    """Drop the scratch package's modules and the registry's loaded entries (another test's
    scratch copy must not be found under the same package name)."""
    for module in [name for name in sys.modules if name == "nim" or name.startswith("nim.")]:
        del sys.modules[module]
    registry._loaded.cache_clear()


@pytest.fixture(scope="module")
def nim(tmp_path_factory):
    """The template folder copied to a scratch ``nim`` folder and registered by
    ``FSMARENA_GAMES``, once for the module (its kernel compiles once); the registry is back to
    the packaged games afterwards (the tests that need it unset come first)."""
    folder = tmp_path_factory.mktemp("scratch") / "nim"
    shutil.copytree(TEMPLATE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    _forget_nim()
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(folder.parent))
        patch.setenv(GAMES_VARIABLE, "nim")
        yield folder
    _forget_nim()


def test_the_template_is_no_registered_game():
    assert "nim" not in game_names()
    assert not any("nim" in package for package in GAME_PACKAGES)


def test_register_adds_a_package_for_this_process(monkeypatch, tmp_path):
    """``fsmarena.games.registry.register`` is the in-process twin of the variable."""
    folder = tmp_path / "scratch" / "nim"
    shutil.copytree(TEMPLATE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    _forget_nim()
    monkeypatch.syspath_prepend(str(folder.parent))
    monkeypatch.setattr("fsmarena.games.registry._registered", [])
    try:
        register("nim")
        assert [e.name for e in entries()][-1] == "nim"
    finally:
        monkeypatch.undo()
        _forget_nim()
    assert "nim" not in game_names()


@pytest.mark.parametrize(
    ("package", "message"),
    [
        ("no_such_game_package", "game package 'no_such_game_package' is not importable"),
        ("json", "game package 'json' declares no ENTRY = GameEntry(...)"),
        ("fsmarena.games.dtd", None),  # named twice: counted once
    ],
)
def test_a_bad_game_package_is_one_clear_error(capsys, monkeypatch, package, message):
    monkeypatch.setenv(GAMES_VARIABLE, package)
    code, out, err = run_cli(capsys, "games", "--json")
    if message is None:
        assert code == 0 and err == ""
        return
    assert code == 2 and out == "" and err.count("\n") == 1
    assert message in err


def test_the_scratch_game_is_registered_from_its_folder_only(nim):
    assert game_names()[-1] == "nim" and len(game_names()) == len(GAME_PACKAGES) + 1
    assert game_folder("nim") == nim
    study = get_study("nim")  # its TOML, read from its folder
    assert study == load_study_toml(nim / "nim.toml") and study.game == "nim"
    for scale in study.scales:
        study.plan(scale)
    assert mkdocs_hooks.rules_pages()["rules/nim.md"] == nim / "rules.md"  # the site shows its page
    assert {"Nim": "rules/nim.md"} in mkdocs_hooks.rules_nav()
    docs.test_every_rules_page_lists_the_parameters_defaults_and_builtins_of_its_game("nim")
    assert docs.broken_links(docs.DOCS / "rules" / "nim.md", (nim / "rules.md").read_text(encoding="utf-8")) == []


def test_the_scratch_game_inherits_the_contract_and_its_declared_expectations(nim):
    declared.test_every_game_declares_its_expectations_with_a_scripted_deal("nim")
    declared.test_the_classifier_is_what_the_game_reports("nim")
    declared.test_chance_and_zero_sum_are_what_the_game_plays("nim")
    for number in range(len(declared.expected("nim").deals)):
        declared.test_every_scripted_deal_plays_as_worked_out_by_hand("nim", number)
    for number in range(len(declared.expected("nim").small_params)):
        declared.test_every_small_configuration_plays_well_formed_games("nim", number)
    game = get_game("nim")
    contract.test_description_is_json_and_parameters_round_trip(game)
    contract.test_observations_keep_the_contract_and_rewards_are_a_ranking(game)
    contract.test_the_same_seed_plays_the_same_games_and_another_seed_does_not(game)
    contract.test_every_player_kind_plays_legal_moves_and_survives_its_file(game)


def test_the_scratch_kernel_agrees_with_its_reference_loop(nim):
    """The kernel's builtins optimal and take-one, in both seats and against themselves, on heaps
    of 1-9 stones with takes of 1-3: the kernel's winner is the plain loop's, and between two
    optimal players the first wins exactly when the heap is no multiple of max_take + 1."""
    from nim import reference

    pairings = {"optimal first": (True, False), "optimal second": (False, True), "both optimal": (True, True)}
    rng = np.random.default_rng(0)
    for max_take in (1, 2, 3):
        for stones in range(1, 10):
            game = get_game("nim", {"stones": str(stones), "max_take": str(max_take)})
            builtins = [game.builtin_players()[name]() for name in ("take-one", "optimal")]
            memories = [player.begin(game, 1, None, rng) for player in builtins]
            for name, optimal in pairings.items():
                choosers = [reference.optimal if o else reference.take_one for o in optimal]

                def decide(seat, obs, rows, optimal=optimal, builtins=builtins, memories=memories):
                    chosen = int(optimal[seat])
                    return builtins[chosen].act(obs, memories[chosen], rows, rng)

                outcome = game.play(1, np.random.default_rng(0), decide)
                winner = reference.winner(stones, max_take, choosers)
                case = f"{name}, {stones} stones, takes 1-{max_take}"
                assert outcome.rewards[0].tolist() == [1.0 - 2 * winner, 2 * winner - 1.0], case
                if name == "both optimal":
                    assert (winner == 0) == (stones % (max_take + 1) != 0), case


def test_the_scratch_game_plays_learns_evolves_and_renders(nim, capsys, tmp_path):
    """The command tests written once for every game, run on the scratch game."""
    commands.test_play_reports_every_game_it_played(capsys, "nim")
    commands.test_tournament_writes_every_pairing(capsys, tmp_path / "tournament", "nim")
    commands.test_train_with_the_default_settings(capsys, tmp_path / "train", "nim")
    for genome in ("fsm", "bda"):
        commands.test_evolve_with_default_inputs_then_inspect_and_draw(capsys, tmp_path / genome, "nim", genome)
    commands.test_solve_and_exploit_where_the_game_declares_it(capsys, "nim")  # it declares no solver: refused


def test_the_optimal_builtin_beats_random_and_the_study_runs(nim, capsys, tmp_path):
    code, out, err = run_cli(capsys, "play", "nim", "optimal", "random", "--games", 400, "--json", "--quiet")
    assert code == 0, err
    # 7 stones: optimal wins every game it starts, and all but those where random plays perfectly
    assert json.loads(out)["win"] > 0.85
    code, _, err = run_cli(
        capsys, "study", "nim", "--scale", "test", "--no-figures", "--quiet", "--out", tmp_path / "study"
    )
    assert code == 0, err
    report = (tmp_path / "study" / "report.md").read_text(encoding="utf-8")
    assert "Q-learning" in report and "take-one" in report
