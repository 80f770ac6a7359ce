"""Statistics of the study layer against hand-worked values and brute-force oracles."""

from __future__ import annotations

import itertools
import math
import types

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as hs

from fsmarena.games.crossplay import CrossplayResult, pairing_games
from fsmarena.stats import comparisons as st
from fsmarena.stats import inference as inf
from fsmarena.studies.comparison_report import comparison_phrase
from fsmarena.studies.crossplay_report import crossplay_overview, crossplay_phrase
from fsmarena.studies.report_text import estimate, summary_cell

# ---- Holm --------------------------------------------------------------------------------------


def test_holm_hand_worked():
    # sorted: 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> running max 0.06
    assert st.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    adjusted = st.holm([0.5, math.nan, 0.01])
    assert math.isnan(adjusted[1])
    assert adjusted[0] == pytest.approx(0.5) and adjusted[2] == pytest.approx(0.02)  # m = 2 valid tests


@given(hs.lists(hs.floats(0, 1), min_size=1, max_size=12))
def test_holm_invariants(p):
    adjusted = st.holm(p)
    m = len(p)
    for raw, adj in zip(p, adjusted):
        assert raw - 1e-12 <= adj <= 1.0
        assert adj <= min(1.0, m * raw) + 1e-12  # never more conservative than Bonferroni
    # order preserving: a smaller raw p never gets a larger adjusted p
    for i, j in itertools.combinations(range(m), 2):
        if p[i] < p[j]:
            assert adjusted[i] <= adjusted[j] + 1e-12


# ---- effect size and Mann-Whitney ---------------------------------------------------------------


@given(hs.lists(hs.integers(0, 5), min_size=1, max_size=8), hs.lists(hs.integers(0, 5), min_size=1, max_size=8))
def test_vargha_delaney_is_probability_of_superiority(x, y):
    pairs = [(a, b) for a in x for b in y]
    expected = sum((a > b) + 0.5 * (a == b) for a, b in pairs) / len(pairs)
    assert st.vargha_delaney(x, y) == pytest.approx(expected)
    assert st.mann_whitney(x, y)["rank_biserial"] == pytest.approx(2 * expected - 1)


def _permutation_p(x, y):
    """Exact two-sided p of U by enumerating every split of the pooled sample (no ties)."""
    pooled = list(x) + list(y)
    n1, n2 = len(x), len(y)

    def u(sample):
        return sum(a > b for a in sample for b in pooled if b not in sample)

    observed = abs(u(x) - n1 * n2 / 2)
    splits = list(itertools.combinations(pooled, n1))
    return sum(abs(u(s) - n1 * n2 / 2) >= observed - 1e-12 for s in splits) / len(splits)


@pytest.mark.parametrize(
    "x, y",
    [
        ([0.61, 0.72, 0.55, 0.80], [0.41, 0.52, 0.49, 0.58]),
        ([0.1, 0.5, 0.3], [0.2, 0.4, 0.6, 0.7, 0.05]),
        ([1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0]),
    ],
)
def test_mann_whitney_matches_exact_permutation_test(x, y):
    result = st.mann_whitney(x, y)
    assert result["p"] == pytest.approx(_permutation_p(x, y))


def test_mann_whitney_degenerate_cases():
    same = st.mann_whitney([0.5, 0.5, 0.5], [0.5, 0.5])
    assert same["p"] == 1.0 and same["a12"] == 0.5
    single = st.mann_whitney([0.4], [0.5, 0.6])
    assert math.isnan(single["p"]) and single["a12"] == 0.0


def test_effect_words_thresholds():
    assert [st.effect_words(a) for a in (0.5, 0.56, 0.64, 0.71, 0.29)] == [
        "negligible",
        "small",
        "medium",
        "large",
        "large",
    ]


# ---- intervals ------------------------------------------------------------------------------------


def test_mean_ci_hand_worked():
    mean, low, high = st.mean_ci([0.0, 1.0])
    # t(0.975, 1) = 12.7062; sd = 0.7071; half = 12.7062 * 0.7071 / sqrt(2) = 6.3531
    assert mean == 0.5 and high - mean == pytest.approx(6.35310, abs=1e-4)
    mean, low, high = st.mean_ci([2.0, 4.0, 6.0])
    # t(0.975, 2) = 4.302653; sd = 2; half = 4.302653 * 2 / sqrt(3) = 4.96828
    assert (low, high) == pytest.approx((4 - 4.96828, 4 + 4.96828), abs=1e-4)
    assert math.isnan(st.mean_ci([3.0])[1])


def test_summarize_clips_rates_to_unit_interval():
    row = st.summarize({"m": [0.0, 1.0]})[0]
    assert row["ci_low"] == 0.0 and row["ci_high"] == 1.0
    assert (row["q1"], row["median"], row["q3"]) == (0.25, 0.5, 0.75)


def test_net_interval_hand_worked():
    net, low, high = st.net_interval(3, 1, 1)
    # p_w = .6, p_l = .2, var = .8 - .16 = .64, half = 1.96 * sqrt(.64 / 5)
    half = 1.959964 * math.sqrt(0.64 / 5)
    assert net == pytest.approx(0.4) and (low, high) == pytest.approx((0.4 - half, 0.4 + half), abs=1e-6)


def test_pairwise_applies_holm_within_the_table():
    groups = {"a": [0.1, 0.2, 0.3, 0.4], "b": [0.5, 0.6, 0.7, 0.8], "c": [0.15, 0.25, 0.35, 0.45]}
    rows = st.pairwise(groups, "random")
    assert [(r["method_a"], r["method_b"]) for r in rows] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert [r["p_holm"] for r in rows] == pytest.approx(st.holm([r["p"] for r in rows]))


# ---- cross-play tables -------------------------------------------------------------------------------


def test_pairing_games_reach_the_target_for_every_family_pair():
    families = ["A", "A", "A", "B", "C", "C"]
    games = pairing_games(families, 97)
    i, j = np.triu_indices(len(families), k=1)
    fam = np.array(families)
    for a in "ABC":
        for b in "ABC":
            if a > b:
                continue
            mask = (fam[i] == a) & (fam[j] == b) | (fam[i] == b) & (fam[j] == a)
            if a == b:
                mask = (fam[i] == a) & (fam[j] == a)
            if mask.any():
                total = games[mask].sum()
                per = games[mask][0]
                assert total >= 97 and per % 2 == 0 and np.all(games[mask] == per)
                assert per == 2 or (per - 2) * mask.sum() < 97  # smallest even number that works
    assert games[(fam[i] == "B") & (fam[j] == "B")].size == 0  # one champion: no self pairing


def test_crossplay_tables_hand_worked():
    # champions 0, 1 of family A, champion 2 of family B
    result = CrossplayResult(
        labels=["a0", "a1", "b0"],
        families=["A", "A", "B"],
        replicates=[0, 1, 0],
        pairs=np.array([[0, 1], [0, 2], [1, 2]]),
        games=np.array([10, 20, 20]),
        wins=np.array([6, 12, 5]),
        draws=np.array([1, 2, 3]),
        losses=np.array([3, 6, 12]),
    )
    family, champions = st.crossplay_tables(result, ["A", "B"])
    by = {(r["family"], r["opponent_family"]): r for r in family}
    ab = by[("A", "B")]
    assert (ab["games"], ab["wins"], ab["draws"], ab["losses"]) == (40, 17, 5, 18)
    ba = by[("B", "A")]
    assert (ba["games"], ba["wins"], ba["losses"]) == (40, 18, 17)
    assert ("A", "A") not in by and ("B", "B") not in by  # no self cells
    rows = {(r["champion"], r["opponent_family"]): r for r in champions}
    assert rows[("a1", "A")]["wins"] == 3 and rows[("a1", "A")]["losses"] == 6
    assert rows[("b0", "A")]["wins"] == 18 and rows[("b0", "A")]["games"] == 40
    # spread of A's champions against B: a0 12/20, a1 5/20
    assert (ab["champion_min"], ab["champion_max"]) == (0.25, 0.6)
    # one champion of B: no champion-level interval (the games of one champion say nothing
    # about its family), only the sign counts: a0 +6/20 ahead, a1 -7/20 behind; b0 ahead of A
    assert math.isnan(ab["ci_low"]) and math.isnan(ab["net_ci_low"])
    assert (ab["champions_ahead"], ab["champions_behind"], ab["opponents_ahead"]) == (1, 1, 1)
    assert ab["opponent_champions"] == 1 and not ab["sign_attainable"]
    assert ab["net"] == pytest.approx((17 - 18) / 40)


def _two_family_crossplay(rng, n_a=6, n_b=5, games=40):
    """A cross-play of two families, each pair of champions over ``games`` games."""
    labels = [f"a{i}" for i in range(n_a)] + [f"b{j}" for j in range(n_b)]
    families = ["A"] * n_a + ["B"] * n_b
    i, j = np.triu_indices(n_a + n_b, k=1)
    keep = (i < n_a) & (j >= n_a)
    pairs = np.stack([i[keep], j[keep]], axis=1)
    p_win = np.clip(0.45 + rng.normal(0, 0.05, len(pairs)), 0.05, 0.9)
    wins = rng.binomial(games, p_win)
    losses = rng.binomial(games - wins, 0.8)  # of the other games, 80% losses, 20% draws
    count = len(pairs)
    return CrossplayResult(
        labels,
        families,
        list(range(n_a)) + list(range(n_b)),
        pairs,
        np.full(count, games),
        wins,
        games - wins - losses,
        losses,
    )


def test_crossplay_intervals_are_champion_level_and_seeded():
    result = _two_family_crossplay(np.random.default_rng(4))
    rows, _ = st.crossplay_tables(result, ["A", "B"], seed=3)
    again, _ = st.crossplay_tables(result, ["A", "B"], seed=3)
    ab = next(r for r in rows if (r["family"], r["opponent_family"]) == ("A", "B"))
    assert ab == next(r for r in again if (r["family"], r["opponent_family"]) == ("A", "B"))
    # wider than the per-game interval, which treats the 1,200 games as independent
    per_game = st.net_interval(ab["wins"], ab["draws"], ab["losses"])
    assert ab["net_ci_high"] - ab["net_ci_low"] > per_game[2] - per_game[1]
    assert ab["net_ci_low"] < ab["net"] < ab["net_ci_high"]
    net, _ = st.pair_matrices(result, "A", "B")
    assert net.mean() == pytest.approx(ab["net"])  # equal games per pairing: the pooled net score


@pytest.mark.parametrize("draws", [True, False])
def test_crossplay_pairs_are_antisymmetric(draws):
    """One estimate and one interval per unordered pair: B vs A is the exact mirror of A vs B
    (negated net score and interval, swapped sign counts; without draws 1 - p win rates)."""
    result = _two_family_crossplay(np.random.default_rng(7))
    if not draws:
        result.losses, result.draws = result.losses + result.draws, np.zeros_like(result.draws)
    rows, _ = st.crossplay_tables(result, ["A", "B"], seed=1)
    by = {(r["family"], r["opponent_family"]): r for r in rows}
    ab, ba = by[("A", "B")], by[("B", "A")]
    assert len(rows) == 2
    assert ba["net"] == pytest.approx(-ab["net"])
    assert (ba["net_ci_low"], ba["net_ci_high"]) == (-ab["net_ci_high"], -ab["net_ci_low"])
    assert (ba["champions_ahead"], ba["opponents_ahead"]) == (ab["opponents_ahead"], ab["champions_ahead"])
    assert ba["sign_p"] == ab["sign_p"] and ba["detectable"] == ab["detectable"]
    assert ba["win_rate"] == pytest.approx(ab["loss_rate"])
    assert ba["ci_low"] <= ba["win_rate"] <= ba["ci_high"]
    if not draws:
        assert (ba["ci_low"], ba["ci_high"]) == pytest.approx((1 - ab["ci_high"], 1 - ab["ci_low"]))
    # the verdict of one direction is the other's, reversed
    flipped = {"ahead": "behind", "behind": "ahead"}
    assert st.crossplay_verdict(ba) == flipped.get(st.crossplay_verdict(ab), st.crossplay_verdict(ab))


def test_crossplay_verdict_needs_the_interval_and_the_champions():
    base = {"net_ci_low": 0.02, "net_ci_high": 0.08, "sign_p": 0.01}
    assert st.crossplay_verdict(base) == "ahead"
    assert st.crossplay_verdict({**base, "sign_p": 0.27}) == "not separated"  # 56/100 champions
    assert st.crossplay_verdict({**base, "net_ci_low": -0.08, "net_ci_high": -0.02}) == "behind"
    assert st.crossplay_verdict({**base, "net_ci_low": -0.005, "net_ci_high": 0.008, "sign_p": 0.5}) == "level"


def test_crossplay_sentence_states_the_detectable_difference_when_not_separated():
    row = {
        "method": "FSM",
        "opponent_method": "Q-learning",
        "net": 0.014,
        "net_ci_low": -0.004,
        "net_ci_high": 0.032,
        "champions_ahead": 56,
        "champions": 100,
        "sign_p": 0.2713,
        "detectable": 0.025,
    }
    text = crossplay_phrase(row)
    assert text.startswith("cannot be separated") and "2.5 pp would have been detected with 80% power" in text
    assert "56/100 champions ahead" in text and "ahead by" not in text
    assert crossplay_phrase({**row, "net_ci_low": 0.004, "sign_p": 0.01}).startswith("FSM ahead by +1.4 pp [+0.4 pp")
    # 3 champions: the smallest two-sided sign-test p is 2 / 2**3 = 0.25, nothing could be shown
    few = crossplay_phrase({**row, "champions": 3, "opponent_champions": 5, "sign_attainable": False})
    assert few.endswith("with 3 and 5 champions no sign test could reach 0.05") and "80% power" not in few
    # the interval excludes zero: the sentence says the sign test decides, never "cannot be separated"
    decided = crossplay_phrase({**row, "net_ci_low": 0.004, "sign_p": 0.2713})
    assert "excludes zero, but the sign test decides" in decided and "cannot be separated" not in decided


def test_the_overview_says_when_an_interval_excludes_zero_but_the_champions_are_too_few():
    """5 against 5 champions: the smallest sign-test p is 2 / 2**5 = 0.0625, so a pair whose
    interval excludes zero is neither 'ahead' nor 'cannot be separated': the overview says why."""

    def row(a, b, low, high, attainable, p):
        return {
            "method": a,
            "opponent_method": b,
            "net": (low + high) / 2,
            "net_ci_low": low,
            "net_ci_high": high,
            "sign_p": p,
            "champions": 5,
            "opponent_champions": 5,
            "sign_attainable": attainable,
        }

    ours = [
        row("MC", "BDA", 0.4, 0.9, False, 0.0625),
        row("MC", "FSM", -0.02, 0.05, False, 0.0625),
        row("MC", "GA", 0.1, 0.2, True, 0.01),
        row("MC", "SARSA", 0.05, 0.25, True, 0.3),  # enough champions, but the sign test does not agree
    ]
    theirs = [row(r["opponent_method"], "MC", -r["net_ci_high"], -r["net_ci_low"], False, r["sign_p"]) for r in ours]
    rows = ours + theirs
    text = crossplay_overview(types.SimpleNamespace(tables={"crossplay_family": rows}))[1]
    assert text.startswith("  - MC: Ahead of GA (+15.0 pp [+10.0 pp, +20.0 pp])")
    assert "Not separated from FSM (" in text and "BDA" not in text.split("Not separated from")[1].split(".")[0]
    assert "Interval excluding zero against BDA (+65.0 pp [+40.0 pp, +90.0 pp]; 5 and 5 champions)" in text
    assert text.endswith("but the sign test decides and cannot reach 0.05 with so few champions.")
    assert (
        "Interval excluding zero against SARSA (+15.0 pp [+5.0 pp, +25.0 pp]; sign test p = 0.3000), but the "
        "champion-level sign test, which decides, does not confirm it." in text
    )
    assert "SARSA" not in text.split("Not separated from")[1].split(".")[0]
    # a family ahead of none says nothing of the kind
    fsm = crossplay_overview(types.SimpleNamespace(tables={"crossplay_family": rows}))[3]
    assert "ahead of no" not in fsm and fsm.startswith("  - FSM: Not separated from MC")


# ---- declared questions, Holm and the words of a comparison ----------------------------------------


def test_holm_runs_over_the_declared_questions_only():
    rng = np.random.default_rng(0)
    groups = {m: list(rng.normal(k, 1, 12)) for k, m in enumerate("abcd")}
    rows = st.pairwise(groups, "random", questions=[("d", "a"), ("b", "c")], seed=1)
    assert [(r["method_a"], r["method_b"], r["declared"]) for r in rows[:2]] == [("d", "a", True), ("b", "c", True)]
    assert len(rows) == 6 and not any(r["declared"] for r in rows[2:])
    assert [r["p_holm"] for r in rows[:2]] == pytest.approx(st.holm([r["p"] for r in rows[:2]]))
    assert all(math.isnan(r["p_holm"]) for r in rows[2:])
    assert rows[0]["holm_alpha"] == pytest.approx(0.025)
    assert rows[0]["a12"] > 0.5 and rows[0]["difference"] > 0  # oriented as declared: d against a


def test_holm_runs_over_the_whole_declared_family_not_within_each_measure():
    """Two measures x two declared questions: one family of 4 tests, Holm over all 4 (the
    exploratory pairs stay out), so each test's Holm p is that of the pooled 4 p-values."""
    rng = np.random.default_rng(5)
    groups = {m: list(rng.normal(0.3 * k, 1, 12)) for k, m in enumerate("abc")}
    questions = [("c", "a"), ("b", "a")]
    measures = [st.pairwise(groups, o, questions, seed=1) for o in ("random", "greedy")]
    within = [r["p_holm"] for rows in measures for r in rows if r["declared"]]
    assert st.holm_over_family(*measures) == 4
    declared = [r for rows in measures for r in rows if r["declared"]]
    assert [r["p_holm"] for r in declared] == pytest.approx(st.holm([r["p"] for r in declared]))
    assert all(new >= old for new, old in zip([r["p_holm"] for r in declared], within))
    assert all(r["holm_alpha"] == pytest.approx(0.05 / 4) and r["family_size"] == 4 for r in declared)
    assert all(math.isnan(r["p_holm"]) for rows in measures for r in rows if not r["declared"])


def test_replicates_needed_is_the_first_count_an_exact_test_can_reach():
    for alpha in (0.05, 0.05 / 4, 0.05 / 20):
        n = st.replicates_needed(alpha)
        assert 2 / math.comb(2 * n, n) < alpha <= 2 / math.comb(2 * n - 2, n - 1)
    assert st.replicates_needed(0.05) == 4  # 2 / C(8, 4) = 0.029; 2 / C(6, 3) = 0.1


def test_no_declared_questions_means_every_pair():
    groups = {"a": [0.1, 0.2, 0.3], "b": [0.3, 0.4, 0.5], "c": [0.5, 0.6, 0.7]}
    rows = st.pairwise(groups)
    assert all(r["declared"] for r in rows) and rows[0]["holm_alpha"] == pytest.approx(0.05 / 3)


def test_three_against_five_replicates_under_holm_over_28_pairs_cannot_separate():
    # the 31 study's case: the best exact Mann-Whitney p is 2/56 = 0.036, above 0.05 / 28
    groups = {f"m{k}": [0.1 * k + 0.01 * i for i in range(3 if k == 0 else 5)] for k in range(8)}
    row = st.pairwise(groups)[0]
    assert not row["attainable"] and st.verdict(row) == "unattainable"
    text = comparison_phrase(row, row["method_a"], row["method_b"], "against `greedy`")
    assert "the rank test decides, and with 3 and 5 replicates it cannot reach Holm's level 0.00179" in text


def test_comparison_words_ahead_level_and_not_separated():
    ahead = st.pairwise({"FSM": [0.8 + 0.001 * i for i in range(12)], "Q": [0.7 + 0.001 * i for i in range(12)]})[0]
    assert st.verdict(ahead) == "ahead"
    assert comparison_phrase(ahead, "FSM", "Q", "against `random`").startswith(
        "against `random`: FSM ahead by +10.0 pp ["
    )
    assert comparison_phrase(ahead, "Q", "FSM", "league").startswith("league: FSM ahead by +10.0 pp")
    spread = np.random.default_rng(1).normal(0, 0.05, 40)
    tied = st.pairwise({"FSM": list(0.8 + spread[:20]), "Q": list(0.8 + spread[20:])}, seed=2)[0]
    assert st.verdict(tied) == "not separated"
    text = comparison_phrase(tied, "FSM", "Q", "league")
    assert "cannot be separated" in text and "would have been detected with 80% power (α = 0.05)" in text
    level = st.pairwise({"A": [0.5 + 0.0001 * i for i in range(20)], "B": [0.5 + 0.0001 * i for i in range(1, 21)]})[0]
    assert st.verdict(level) == "level"


def test_means_apart_but_ranks_not_separated_say_both():
    """Goofspiel's FSMs against match: half the runs at 100%, a third at 0%; Q-learning's all
    near 89%.  The means differ at 95%, the rank test does not separate them: the words must not
    say 'cannot be separated' next to an interval that excludes zero without saying why."""
    fsm = [1.0] * 15 + [0.0] * 10 + [0.5] * 5
    q = list(0.89 + 0.01 * np.random.default_rng(3).standard_normal(30))
    row = st.pairwise({"Q": q, "FSM": fsm}, seed=4)[0]
    assert st.verdict(row) == "not separated" and (row["difference_low"] > 0 or row["difference_high"] < 0)
    text = comparison_phrase(row, "Q", "FSM", "against `match`")
    assert text.startswith("against `match`: not separated by the rank test at Holm's level (Holm p = ")
    assert "uncorrected 95% interval of the difference of means excludes zero" in text
    assert "would have been detected" not in text


def test_degenerate_samples_read_all_n_replicates_not_a_zero_width_interval():
    row = st.summarize({"MC": [1.0] * 4})[0]
    assert row["all_equal"] and summary_cell(row) == "all 4 replicates 100.0%"
    assert "[100.0%, 100.0%]" not in summary_cell(row)
    assert estimate(0.5, 0.4, 0.6) == "50.0% [40.0%, 60.0%]"


def test_a_builtin_is_a_fixed_player_its_opponents_interval_is_over_their_champions_by_hand():
    """Champions a0 (net +0.5 over 10 games) and a1 (+0.1) of A against B, the builtin: the
    row is A's mean net with the Student-t interval of the two champions' nets, mirrored for B;
    the deciding sign test counts A's two champions only."""
    result = CrossplayResult(
        labels=["a0", "a1", "b0"],
        families=["A", "A", "B"],
        replicates=[0, 1, 0],
        pairs=np.array([[0, 1], [0, 2], [1, 2]]),
        games=np.array([10, 10, 10]),
        wins=np.array([5, 6, 4]),
        draws=np.array([0, 3, 3]),
        losses=np.array([5, 1, 3]),
    )
    family, _ = st.crossplay_tables(result, ["A", "B"], fixed=frozenset({"B"}))
    by = {(r["family"], r["opponent_family"]): r for r in family}
    ab, ba = by[("A", "B")], by[("B", "A")]
    nets = np.array([0.5, 0.1])
    half = scipy.stats.t.ppf(0.975, 1) * nets.std(ddof=1) / np.sqrt(2)
    assert ab["net"] == pytest.approx(0.3)
    assert (ab["net_ci_low"], ab["net_ci_high"]) == pytest.approx((max(0.3 - half, -1.0), min(0.3 + half, 1.0)))
    assert (ba["net_ci_low"], ba["net_ci_high"]) == pytest.approx((-ab["net_ci_high"], -ab["net_ci_low"]))
    assert ab["sign_p"] == pytest.approx(inf.sign_test(2, 0)) and not ab["sign_attainable"]


def test_a_builtin_competitor_runs_once_whatever_the_scale_asks():
    from fsmarena.studies.catalogue import get_study

    for scale in ("test", "quick", "paper"):
        plan = get_study("thirtyone").plan(scale)
        assert plan.fixed == {"greedy", "greedy-knock"}
        assert all(plan.competitor(name).replicates == 1 for name in plan.fixed)
        assert plan.competitor("mc").replicates > 1 or scale == "test"


def test_two_builtins_are_decided_by_their_games_with_a_per_game_interval():
    """Builtin x against builtin y, 100 games: 60 wins, 10 draws, 30 losses: net +0.3 with the
    normal interval of a per-game outcome in {+1, 0, -1}, win rate with Wilson's; ahead."""
    result = CrossplayResult(
        labels=["x", "y"],
        families=["X", "Y"],
        replicates=[0, 0],
        pairs=np.array([[0, 1]]),
        games=np.array([100]),
        wins=np.array([60]),
        draws=np.array([10]),
        losses=np.array([30]),
    )
    family, _ = st.crossplay_tables(result, ["X", "Y"], fixed=frozenset({"X", "Y"}))
    xy = next(r for r in family if r["family"] == "X")
    half = 1.959964 * math.sqrt((0.6 + 0.3 - 0.09) / 100)
    assert (xy["net_ci_low"], xy["net_ci_high"]) == pytest.approx((0.3 - half, 0.3 + half), abs=1e-6)
    assert xy["fixed_pair"] and st.crossplay_verdict(xy) == "ahead"
    unfixed, _ = st.crossplay_tables(result, ["X", "Y"])
    assert not unfixed[0]["fixed_pair"] and st.crossplay_verdict(unfixed[0]) == "not separated"


def test_pooled_family_counts_are_the_sums_over_every_pairing_of_the_two_families():
    """The family rows' pooled columns, summed once per family pair, against a loop over the
    pairings (both seatings of a pair in the list of pairs)."""
    rng = np.random.default_rng(11)
    families = ["A", "B", "C", "A", "B", "C", "C"]
    pairs = np.stack(np.triu_indices(len(families), k=1), axis=1)
    games = 2 * rng.integers(1, 6, len(pairs))
    wins = rng.integers(0, games + 1)
    draws = rng.integers(0, games - wins + 1)
    labels = [f"{f}{k}" for k, f in enumerate(families)]
    result = CrossplayResult(labels, families, list(range(7)), pairs, games, wins, draws, games - wins - draws)
    rows, _ = st.crossplay_tables(result, ["A", "B", "C"], seed=1)
    for row in rows:
        a, b = row["family"], row["opponent_family"]
        expected = {"pairings": 0, "games": 0, "wins": 0, "losses": 0}
        for (i, j), g, w, d in zip(pairs, games, wins, draws):
            side = (families[i], families[j])
            if side in ((a, b), (b, a)):
                mine, theirs = (w, g - w - d) if side == (a, b) else (g - w - d, w)
                expected = {
                    "pairings": expected["pairings"] + 1,
                    "games": expected["games"] + g,
                    "wins": expected["wins"] + mine,
                    "losses": expected["losses"] + theirs,
                }
        assert {k: row[k] for k in expected} == expected and row["draws"] == row["games"] - row["wins"] - row["losses"]
    assert len(rows) == 6
