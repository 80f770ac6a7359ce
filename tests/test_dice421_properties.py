"""Property tests of the 421 engine: for any rules, policy and seed, every decision a player
sees is a valid game position and every game ends as the rules say."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fsmarena.games.arena import play_games
from fsmarena.games.dice421.game import Dice421, Dice421Config, mask_positions
from fsmarena.games.dice421.reference import score as reference_score
from fsmarena.games.players import TablePolicy


class Recorder(TablePolicy):
    """A table policy that logs every decision: (game, throws left, dice, index, mask, action)."""

    def begin(self, game, n, members, rng):
        self.log = []
        return super().begin(game, n, members, rng)

    def act(self, obs, memory, rows, rng):
        actions = super().act(obs, memory, rows, rng)
        games = np.arange(obs.n) if rows is None else rows
        mask = obs.mask
        for i, g in enumerate(games):
            self.log.append(
                (
                    int(g),
                    int(obs.throws_left[i]),
                    tuple(int(d) for d in obs.dice[i]),
                    int(obs.index[i]),
                    None if mask is None else mask[i].copy(),
                    int(actions[i]),
                )
            )
        return actions


@settings(max_examples=40, deadline=None)
@given(
    rethrows=st.integers(0, 4),
    variant=st.sampled_from(["seed", "sum"]),
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 60),
    data=st.data(),
)
def test_every_decision_is_a_valid_position_and_games_end_by_the_rules(rethrows, variant, seed, n, data):
    game = Dice421(Dice421Config(rethrows=rethrows, scores=variant))
    table = np.array(data.draw(st.lists(st.integers(0, 7), min_size=game.n_states, max_size=game.n_states)))
    player = Recorder(table)
    outcome = play_games(game, [player], n, np.random.default_rng(seed), check_legal=True)

    by_game: dict[int, list] = {}
    for entry in player.log:
        by_game.setdefault(entry[0], []).append(entry)
    assert sorted(by_game) == list(range(n))  # every game is asked at least once
    for g, decisions in by_game.items():
        assert len(decisions) <= rethrows + 1
        for step, (_, left, dice, index, mask, action) in enumerate(decisions):
            assert all(1 <= d <= 6 for d in dice)
            assert list(dice) == sorted(dice, reverse=True)
            assert left == rethrows - step  # starts at the limit, one fewer per throw
            assert index == game.index_of(dice, left)
            if left == 0:
                assert mask is not None and mask[0] and not mask[1:].any()
            else:
                assert mask is None
            played = action if left else 0
            last = step == len(decisions) - 1
            # stop is final: a game that keeps all (or has no throw left) is never asked again,
            # and a game that re-throws is asked again
            assert (played == 0) == last
            if not last:
                kept = [d for d, again in zip(dice, mask_positions(played)) if not again]
                assert not Counter(kept) - Counter(decisions[step + 1][2])  # kept dice stay
        final_dice = decisions[-1][2]
        assert outcome.scores[g, 0] == reference_score(final_dice, variant)
        assert outcome.rewards[g, 0] == outcome.scores[g, 0]
