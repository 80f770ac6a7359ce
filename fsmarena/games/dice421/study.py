"""What only 421 gives its study: the hook of the exact-values report.

421 is a one-player game with a known model (:mod:`fsmarena.games.dice421.exact`); its study (``421.toml``)
trains with the exact-value study methods (:mod:`fsmarena.methods.exact`) and
names the exact-values report, which the studies layer builds (:mod:`fsmarena.studies.exact_report`).
:func:`exact_reference` is the hook 421's entry declares for that report: its optimum and the
optimal policy (rows, text, and the chart of :mod:`fsmarena.games.dice421.figures`), as data.
"""

from __future__ import annotations

from functools import partial

from fsmarena.games.dice421.figures import optimal_policy_figure
from fsmarena.games.dice421.game import Dice421
from fsmarena.studies.exact_values import ExactReference


def exact_reference(game: Dice421) -> ExactReference:
    """421's hook for the exact-values report (:mod:`fsmarena.studies.exact_report`): the optimal
    expected score, and the optimal policy as rows, as text and as a chart of dice kept."""
    value, table = game.exact_optimum()
    return ExactReference(
        value=value,
        policy_rows=[
            {**row, "dice": "".join(map(str, row["dice"])), "keep": "".join(map(str, row["keep"]))}
            for row in game.policy_rows(table)
        ],
        policy_text=game.policy_text(table),
        policy_intro="Which dice to keep, by dice (best scores first) and throws left; *stop* keeps all three.",
        policy_caption="The optimal policy of 421: colour = number of dice thrown again, text = the dice kept.",
        draw_policy=partial(optimal_policy_figure, game, table),
    )
