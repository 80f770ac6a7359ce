"""Builtin 31 players (random, greedy, greedy-knock) and the benchmark.

``greedy`` follows the seed's baseline ("always choose the highest-value immediate action",
counting the cards seen in the discard pile), made precise:

* turn decision: take the face-up discard when the best hand it gives (it must replace one of
  the three cards) scores *more* than the expected score of a stock draw - the mean, over
  the cards this player cannot locate (not in its hand, not in the discard pile, not known to
  sit in another hand because they were picked up from the pile), of the best three of the
  four cards; otherwise draw from the stock.  It never knocks, like the seed's greedy agent;
* discard decision: keep the three cards with the highest (score, total card value) - the
  total breaks the seed's "secondary considerations" ties (keep the 4 of clubs rather than
  the 2) - preferring, on equal keys, to throw the drawn card, then the later hand position.

``greedy-knock`` is greedy that knocks when it may and its hand scores at least
``threshold`` (default :data:`DEFAULT_THRESHOLD`; saveable as JSON with any threshold).
The kernel computes greedy's choices as observation parts (``greedy_turn``,
``greedy_discard``), so the player only reads them.
"""

from __future__ import annotations

import functools
import time

import numpy as np

from fsmarena.games.arena import play_games
from fsmarena.games.bench import BenchCase
from fsmarena.games.players import Player, RandomPlayer
from fsmarena.games.thirtyone.game import DISCARD_GREEDY, KNOCK, TURN
from fsmarena.games.thirtyone.reference import plain_loop

#: greedy-knock's default knock threshold (hand score >= threshold): the best whole-number
#: threshold against greedy in 1v1 (20,000 games per threshold: 20 -> 28% wins, 27 -> 49%,
#: 29 -> 62%, 30 -> 68%; a hand of 31 ends the round by itself)
DEFAULT_THRESHOLD = 30.0


class GreedyPlayer(Player):
    """The seed's greedy baseline; with ``threshold`` it also knocks at that score or more."""

    kind = "thirtyone-greedy"

    def __init__(self, threshold: float | None = None, label: str | None = None):
        if threshold is not None:
            threshold = float(threshold)
        default = "greedy" if threshold is None else f"greedy-knock-{threshold:g}"
        super().__init__(label or default)
        self.threshold = threshold

    def act(self, obs, memory, rows, rng):
        if obs.phase != TURN:
            return np.full(obs.n, DISCARD_GREEDY, dtype=np.int64)
        actions = obs.greedy_turn.copy()
        if self.threshold is not None:
            knock = obs.mask[:, KNOCK] & (obs.score2 >= round(2 * self.threshold))
            actions[knock] = KNOCK
        return actions

    def to_dict(self):
        return {"threshold": self.threshold}

    @classmethod
    def from_fields(cls, fields, game):
        threshold = fields.get("threshold", (float, type(None)), None)
        if threshold is not None and not 0.0 <= threshold <= 31.0:
            raise fields.fail(f"field 'threshold' must be between 0 and 31, got {threshold}")
        return cls(threshold, label=fields.get("label", str, None))


def builtin_players() -> dict:
    return {
        "random": RandomPlayer,
        "greedy": GreedyPlayer,
        "greedy-knock": functools.partial(GreedyPlayer, DEFAULT_THRESHOLD, "greedy-knock"),
    }


def bench_cases(game) -> list:
    """1v1 greedy against greedy: the driver over the kernel against the plain reference loop."""

    players = [GreedyPlayer() for _ in range(game.n_seats)]
    extra: dict = {}

    def engine(n: int, seed: int) -> object:
        rng = np.random.default_rng(seed)
        chunk = 50_000
        start_cpu = time.process_time()
        for start in range(0, n, chunk):
            play_games(game, players, min(chunk, n - start), rng)
        # CPU time of this process too: on a shared machine wall-clock speed understates it
        extra["engine_cpu_games_per_second"] = n / max(time.process_time() - start_cpu, 1e-9)
        return None

    def plain(n: int, seed: int) -> object:
        return plain_loop(game.config, n, seed)

    return [
        BenchCase(
            "greedy vs greedy",
            engine,
            plain,
            engine_games=100_000,
            plain_games=300,
            target=">= 20,000 games/s on one core (2 players)",
            extra=extra,
        )
    ]
