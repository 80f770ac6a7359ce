"""The declared-questions section: sentences from simulated replicates with a known answer."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from fsmarena.studies import question_answers as qa
from fsmarena.studies.registry import SECTIONS


def _records(rates, games=1000, panel_games=2000000):
    return [
        SimpleNamespace(games=games, panel={"random": {"wins": round(r * panel_games), "games": panel_games}})
        for r in rates
    ]


def _results(a_rates, b_rates, questions=(("a", "b"),), b_games=1000):
    families = {"a": _records(a_rates), "b": _records(b_rates, b_games)}
    plan = SimpleNamespace(seed=3, competitor=lambda name: SimpleNamespace(label=name.upper()))
    data = SimpleNamespace(plan=plan, family=lambda name: families[name])
    study = SimpleNamespace(questions=questions, curve_opponent="random", panel=("random",))
    results = SimpleNamespace(study=study, parts={None: data}, part_name=lambda part: str(part))
    results.at_every_level = lambda: {None: results}
    return results


@pytest.mark.parametrize("seed", range(5))
def test_a_family_truly_ahead_by_ten_points_is_said_ahead_and_the_interval_covers_it(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(0.6, 0.03, 30), rng.normal(0.5, 0.03, 30)
    text = qa.section(_results(a, b))
    assert "**A is ahead of B** at 1,000 games" in text
    low, high = (float(x) for x in text.split("pp [")[1].split("]")[0].split(","))
    assert low <= 10.0 <= high and low > 0
    reverse = qa.section(_results(b, a))
    assert "**B is ahead of A**" in reverse


def test_families_with_the_same_rate_cannot_be_separated_and_the_detectable_difference_is_given():
    from scipy.stats import norm

    a = 0.5 + 0.03 * norm.ppf((np.arange(20) + 0.5) / 20)  # the same 20 rates in both families
    b = np.random.default_rng(11).permutation(a)
    text = qa.section(_results(a, b))
    assert "**A and B cannot be separated**" in text
    detectable = float(text.split("a difference of ")[1].split(" pp")[0])
    # (z_0.975 + z_0.8) x the two-sample standard error of 20 + 20 replicates with sd 3 points
    assert detectable == pytest.approx(2.80 * np.sqrt(2 * 9 / 20), rel=0.35)


def test_no_declared_question_leaves_the_section_out_and_it_is_registered():
    assert qa.section(_results([0.5, 0.6], [0.5, 0.6], questions=())) == ""
    assert SECTIONS["questions"].target == "fsmarena.studies.question_answers:section"


def test_a_difference_of_hundredths_of_a_point_is_printed_with_the_digits_it_needs():
    rng = np.random.default_rng(4)
    a, b = 0.9995 + rng.normal(0, 0.00002, 20), 0.9993 + rng.normal(0, 0.00002, 20)
    text = qa.section(_results(a, b))
    assert "**A is ahead of B**" in text and "+0.020 pp [" in text
    assert "+0.0 pp" not in text


def test_unequal_budgets_are_named_both_and_said_unequal():
    rng = np.random.default_rng(5)
    a, b = rng.normal(0.6, 0.03, 10), rng.normal(0.5, 0.03, 10)
    assert "at 1,000 and 2,000 games (unequal budgets)" in qa.section(_results(a, b, b_games=2000))
    assert "at 1,050 games:" in qa.section(_results(a, b, b_games=1100))


def test_an_interval_excluding_zero_that_the_test_does_not_confirm_names_the_deciding_test():
    """Three replicates a family: the exact rank test cannot go below p = 0.1, whatever the gap."""
    text = qa.section(_results([0.61, 0.62, 0.63], [0.50, 0.51, 0.52]))
    assert "**A and B are not separated by the rank test**" in text and "which decides" in text
    assert "cannot be separated" not in text


def test_two_replicates_far_apart_give_an_interval_within_the_range_of_a_difference_and_no_detectable_size():
    text = qa.answer("A", "B", [0.0, 1.0], [0.0, 1.0], "500 games", 1.0)
    low, high = (float(x) for x in text.split("[")[1].split("]")[0].split(", "))
    assert -100.0 <= low < 0 < high <= 100.0  # the t interval of two replicates runs far past ±100 pp: cut there
    assert "no difference a rate can show (±100 pp) would have been detected" in text


def test_a_rank_test_that_separates_what_the_means_do_not_names_the_family_ahead_and_the_deciding_test():
    # B wins most pairings of replicates, but one outlier of B pulls its mean below A's
    xs = [0.50] * 20
    ys = [0.52] * 19 + [0.0]
    text = qa.answer("A", "B", xs, ys, "1,000 games", 0.001)
    assert text.startswith("**B is ahead of A by the rank test** at 1,000 games")
    assert "includes zero" in text and "which decides" in text and "cannot be separated" not in text
    assert qa._a12(xs, ys) == pytest.approx(1 / 20)


def test_the_tests_table_cuts_a_difference_of_rates_at_100_pp_and_finds_no_detectable_size():
    """Two replicates of A far apart: Welch's interval of the difference of the means runs past
    ±100 pp, which no difference of two win rates can reach; the table shows it cut there and
    says no size beyond 100 pp is 'detectable'."""
    from fsmarena.stats.comparisons import pairwise
    from fsmarena.studies.analysis import Analysis
    from fsmarena.studies.comparison_report import tests_section

    rows = pairwise({"a": [0.05, 0.95], "b": [0.50, 0.52]}, opponent="random")
    assert rows[0]["difference_low"] < -1.0 and rows[0]["difference_high"] > 1.0  # the estimator's own interval
    text = tests_section(Analysis(tables={"panel_tests": rows}, labels={"a": "A", "b": "B"}))
    row = next(line for line in text.splitlines() if line.startswith("| a | b |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[3].endswith("[-100.0 pp, +100.0 pp]")
    assert cells[-1] == "none"
