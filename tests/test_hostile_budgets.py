"""Budgets, workers and game sizes the command line refuses before any work or file: oversized
budgets name their limit, study definitions that cannot run claim no folder, a mistake in a
study file is one line, hostile study labels and titles are sanitised.

Every case ends as the README promises (:mod:`hostile_helpers` says how).
"""

from __future__ import annotations

import time

import pytest
from cli_helpers import run_cli
from hostile_helpers import (
    EVOLVE,
    STUDY_TOML,
    TRAIN,
    assert_one_clear_line,
    files,
)

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


@pytest.mark.parametrize(
    "panel_games, halfwidth, extra, words",
    [
        ("1000000000000000", "0.2", "", "MAX_COUNT|MAX_GAMES"),
        ("100", "1e-9", "", "MIN_HALFWIDTH"),
        ("100", "nan", "", "finite"),
        ("100", "0.2", 'report = "exact-values"', "needs a game with an exact model, not dtd"),
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
