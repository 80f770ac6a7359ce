"""``fsmarena study thirtyone``: the pipeline at the test scale (every reported number traced
back to raw counts, the confirmation and 3-player games replayed from their documented seeds),
resume, refusals, the 3-player table against a plain per-seating loop, and the train-mlp
method's settings."""

from __future__ import annotations

import json
import shutil
import zlib
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

pytest.importorskip("sklearn")

from cli_helpers import cli  # noqa: E402
from report_helpers import report_defects  # noqa: E402

from fsmarena.cli import main  # noqa: E402
from fsmarena.errors import FsmarenaError  # noqa: E402
from fsmarena.games import get_game  # noqa: E402
from fsmarena.games.arena import play_games  # noqa: E402
from fsmarena.games.builtin_player import BuiltinPlayer  # noqa: E402
from fsmarena.games.match import play_match  # noqa: E402
from fsmarena.games.players import RandomPlayer, resolve_player  # noqa: E402
from fsmarena.games.stats import wilson_interval  # noqa: E402
from fsmarena.methods.base import MethodContext, check_method  # noqa: E402
from fsmarena.studies.analysis import read_csv  # noqa: E402
from fsmarena.studies.catalogue import get_study  # noqa: E402
from fsmarena.studies.report_text import pct  # noqa: E402
from fsmarena.studies.stage_confirm import CONFIRM_KEY  # noqa: E402
from fsmarena.studies.stage_table import CHUNK, TABLE_KEY, arrangements, table_match  # noqa: E402

FAMILIES = (
    "MC",
    "SARSA",
    "Q-learning",
    "MLP agent",
    "FSM vs greedy",
    "BDA vs greedy",
    "FSM round robin",
    "BDA round robin",
    "greedy-knock",
    "greedy",
)
FIGURES = (
    "learning_curves",
    "evolution_curves",
    "panel_outcomes",
    "crossplay_heatmap",
    "crossplay_spread",
    "versus_reference",
    "table",
    "best_fsm",
    "best_bda",
    "reliability",
)


@pytest.fixture()
def run(thirtyone_run):
    """The test scale without figures (figures: the slow test)."""
    return thirtyone_run


# ---- the whole pipeline ---------------------------------------------------------------------------


def test_the_answer_is_traced_to_fresh_games_replayed_from_the_documented_seed(run):
    out, summary = run
    study = get_study("thirtyone")
    target, confirm_games = study.options["target"], study.scales["test"].options["confirm_games"]
    game = get_game("thirtyone")
    families = read_csv(out / "tables" / "families.csv")
    assert [r["method"] for r in families] == list(FAMILIES)
    assert [r["method"] for r in summary["families"]] == list(FAMILIES)
    raw = json.loads((out / "raw" / "confirm.json").read_text())["results"]
    report = (out / "report.md").read_text()
    greedy = resolve_player("greedy", game)
    for row, counts in zip(families, raw):
        name, replicate = row["competitor"], int(row["best_replicate"])
        assert counts["competitor"] == name and counts["replicate"] == replicate
        games, wins = int(row["confirm_games"]), int(row["confirm_wins"])
        assert (games, wins) == (counts["games"], counts["wins"]) == (confirm_games, wins)
        low, high = wilson_interval(wins, games)
        assert float(row["confirm_ci_low"]) == pytest.approx(low, abs=1e-5)
        assert float(row["confirm_ci_high"]) == pytest.approx(high, abs=1e-5)
        assert (row["reaches_target"] == "True") == (low >= target)
        # the best replicate is the one with the most panel wins against greedy
        panel = [
            json.loads(p.read_text())["panel"]["greedy"]["wins"]
            for p in sorted((out / "replicates" / name).glob("r*.json"))
        ]
        assert panel[replicate] == max(panel)
        # replayed from the player file and the seed the report documents: the same games
        player = resolve_player(str(out / "players" / name / f"r{replicate:03d}.json"), game)
        seed = np.random.SeedSequence(31, spawn_key=(CONFIRM_KEY, zlib.crc32(name.encode())))
        stats = play_match(game, player, greedy, games, seed)
        assert (stats.wins, stats.draws, stats.losses) == (wins, int(row["confirm_draws"]), int(row["confirm_losses"]))
        # the report prints exactly these numbers
        line = next(x for x in report.splitlines() if x.startswith(f"| {row['method']} |"))
        assert f"{pct(wins / games, 2)} [{pct(low, 2)}, {pct(high, 2)}]" in line
    assert ("**Yes**" in report) == any(r["reaches_target"] == "True" for r in families)


def test_the_three_player_table_is_traced_to_its_games(run):
    out, summary = run
    study = get_study("thirtyone")
    references, opponents = study.options.get("table_references", []), study.options["table_opponents"]
    table_games = study.scales["test"].options["table_games"]
    assert study.options["table_players"] == 3
    table_game = get_game("thirtyone", {"players": "3"})
    rows = read_csv(out / "tables" / "table.csv")
    raw = json.loads((out / "raw" / "table.json").read_text())["results"]
    champions = sorted((out / "players").glob("*/r*.json"))
    assert len(rows) == len(raw) == len(champions) + len(references)
    games = -(-table_games // 6) * 6
    for row, counts in zip(rows, raw):
        assert int(row["games"]) == counts["games"] == games
        assert int(row["wins"]) + int(row["draws"]) + int(row["losses"]) == games
        # 31 always has one sole winner: the entrant's wins and each opponent's wins add up
        assert int(row["wins"]) + sum(counts["other_wins"]) + int(row["draws"]) == games
    # one champion and the random reference replayed from their documented seeds
    others = [resolve_player(name, table_game) for name in opponents]
    for row in (rows[0], rows[-1]):
        label = row["entrant"]
        player = resolve_player(str(out / "players" / f"{label}.json") if "/" in label else label, table_game)
        seed = np.random.SeedSequence(31, spawn_key=(TABLE_KEY, zlib.crc32(label.encode())))
        again = table_match(table_game, player, others, table_games, seed)
        assert again["wins"] == int(row["wins"]) and again["losses"] == int(row["losses"])
    summary_rows = read_csv(out / "tables" / "table_summary.csv")
    for s in summary_rows:
        mine = [r for r in rows if r["group"] == s["group"]]
        assert int(s["games"]) == sum(int(r["games"]) for r in mine)
        assert int(s["wins"]) == sum(int(r["wins"]) for r in mine)
        rates = np.array([float(r["win_rate"]) for r in mine])
        if len(mine) > 1:  # a family: the mean over its champions, the Student-t interval over them
            assert s["unit"] == "champions" and float(s["rate"]) == pytest.approx(rates.mean(), abs=1e-5)
            if np.ptp(rates) > 0:
                half = stats.t.ppf(0.975, len(rates) - 1) * rates.std(ddof=1) / np.sqrt(len(rates))
                low, high = max(0.0, rates.mean() - half), min(1.0, rates.mean() + half)
                assert (float(s["rate_low"]), float(s["rate_high"])) == pytest.approx((low, high), abs=1e-4)
        else:  # one builtin: its own games' Wilson interval
            low, high = wilson_interval(int(s["wins"]), int(s["games"]))
            assert s["unit"] == "games"
            assert (float(s["rate_low"]), float(s["rate_high"])) == pytest.approx((low, high), abs=1e-5)
        assert (s["above_fair_share"] == "True") == (float(s["rate_low"]) > 1 / 3)
    assert [s["group"] for s in summary_rows] == [*FAMILIES, "random"]
    assert [s["group"] for s in summary["table"]] == [*FAMILIES, "random"]


def test_every_generic_table_and_the_report_sections_exist(run):
    out, _summary = run
    for name in (
        "panel",
        "panel_summary",
        "curves",
        "seeds",
        "timing",
        "crossplay_family",
        "crossplay_champions",
        "families",
        "table",
        "table_summary",
    ):
        assert (out / "tables" / f"{name}.csv").stat().st_size > 0, name
    report = (out / "report.md").read_text()
    for heading in (
        "## Answer",
        "## Protocol",
        "## Results",
        "### Cross-play",
        "## 3 players",
        "## Compute",
        "## Reproduce",
    ):
        assert heading in report, heading
    panel = read_csv(out / "tables" / "panel.csv")
    assert {r["opponent"] for r in panel} == {"greedy", "greedy-knock", "random"}
    for path in sorted((out / "replicates").glob("*/r*.json")):
        record = json.loads(path.read_text())
        for opponent, counts in record["panel"].items():
            row = next(
                r
                for r in panel
                if r["champion"] == f"{record['competitor']}/r{record['replicate']:03d}" and r["opponent"] == opponent
            )
            assert int(row["wins"]) == counts["wins"] and int(row["games"]) == counts["games"]


def test_the_report_has_no_empty_heading_zero_width_interval_or_unwritten_figure(run):
    out, _summary = run
    text = (out / "report.md").read_text()
    assert report_defects(text, figures=False) == []
    assert "The study declares 5 questions in advance" in text


def test_a_rerun_resumes_without_playing_again(run, tmp_path, capsys):
    out = Path(shutil.copytree(run[0], tmp_path / "run"))  # the session's run is shared: rerun a copy
    before = {p.name: p.read_bytes() for p in (out / "raw").glob("*.json")}
    tables = {p.name: p.read_bytes() for p in (out / "tables").glob("*.csv") if p.name != "timing.csv"}
    code = main(["study", "thirtyone", "--scale", "test", "--out", str(out), "--no-figures"])
    err = capsys.readouterr().err
    assert code == 0
    assert "reusing the finished tournament" in err and "confirmation matches: reusing" in err
    assert "3-player table: reusing" in err
    assert {p.name: p.read_bytes() for p in (out / "raw").glob("*.json")} == before
    assert {p.name: p.read_bytes() for p in (out / "tables").glob("*.csv") if p.name != "timing.csv"} == tables


def test_refusals_are_one_line(run, tmp_path, capsys):
    out, _summary = run
    assert main(["study", "thirtyone", "--scale", "huge", "--out", str(tmp_path / "x")]) == 2
    assert "no scale 'huge'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    assert main(["study", "thirtyone", "--scale", "test", "--seed", "5", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "holds the results of study" in err and err.count("\n") == 1


@pytest.mark.slow
def test_end_to_end_with_figures_and_two_jobs_gives_the_same_tables(run, tmp_path):
    out, _summary = run
    other = tmp_path / "figures"
    assert cli("study", "thirtyone", "--scale", "test", "--jobs", "2", "--out", str(other), "--quiet")[0] == 0
    for path in sorted((out / "tables").glob("*.csv")):
        if path.name != "timing.csv":
            assert (other / "tables" / path.name).read_bytes() == path.read_bytes(), path.name
    report = (other / "report.md").read_text()
    for stem in FIGURES:
        for suffix in (".png", ".pdf"):
            assert (other / "figures" / f"{stem}{suffix}").stat().st_size > 1000, stem
        assert f"figures/{stem}.png" in report, stem


# ---- the 3-player table ---------------------------------------------------------------------------


def test_arrangements_seat_everybody_everywhere_equally():
    plans = arrangements(3)
    assert len(plans) == len(set(plans)) == 6
    for seat in range(3):
        assert sorted(p[seat] for p in plans) == [0, 0, 1, 1, 2, 2]


def test_table_match_counts_equal_a_plain_loop_over_the_seatings():
    game = get_game("thirtyone", {"players": "3"})
    entrant, others = BuiltinPlayer("greedy-knock", {"threshold": 30.0}), [BuiltinPlayer("greedy"), RandomPlayer()]
    seed = np.random.SeedSequence(7)
    result = table_match(game, entrant, others, 100, seed)
    assert result["games"] == 102  # rounded up to a multiple of the six seatings
    # the same games by hand: seating k gets the k-th child stream (one chunk each at this size)
    assert 17 < CHUNK
    wins = losses = 0
    other_wins = [0, 0]
    cast = [entrant, *others]
    for order, child in zip(arrangements(3), np.random.SeedSequence(7).spawn(6)):
        rewards = play_games(game, [cast[who] for who in order], 17, np.random.default_rng(child)).rewards
        wins += int((rewards[:, order.index(0)] > 0).sum())
        losses += int((rewards[:, order.index(0)] < 0).sum())
        for k in range(2):
            other_wins[k] += int((rewards[:, order.index(k + 1)] > 0).sum())
    assert (result["wins"], result["losses"], result["other_wins"]) == (wins, losses, other_wins)
    with pytest.raises(FsmarenaError):
        table_match(game, entrant, others[:1], 10, seed)


# ---- the train-mlp method ---------------------------------------------------------------------------


def test_train_mlp_records_its_settings_without_the_replicate_seed_and_refuses_typos():
    game = get_game("thirtyone")
    settings = check_method("train-mlp", MethodContext(game, {"games": 100, "hidden": [8]}, 123, "mlp", [], "greedy"))
    assert settings["games"] == 100 and settings["hidden"] == [8] and "seed" not in settings
    assert settings["eval_panel"] == ["greedy"] and settings["opponents"] == ["greedy"]
    for params, message in (
        ({"gamess": 100}, "unknown parameter 'gamess'"),
        ({"games": 0}, "positive"),
        ({"opponents": ["nobody"]}, "unknown player 'nobody'"),
        ({"seed": 3}, "unknown parameter"),
    ):
        with pytest.raises(FsmarenaError, match=message):
            check_method("train-mlp", MethodContext(game, params, 0, "mlp", [], "greedy"))
    with pytest.raises(FsmarenaError, match="31"):
        check_method("train-mlp", MethodContext(get_game("dtd"), {}, 0, "mlp", [], "random"))
