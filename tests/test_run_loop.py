"""The one run loop (fsmarena/run_loop.py): steps, curve points, checkpoints, exact resume,
and the one-line list of changed settings; then the three runs that use it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from fsmarena import run_loop
from fsmarena.errors import FsmarenaError
from fsmarena.evo.run import EvolveConfig, evolve
from fsmarena.games import get_game


class Interrupted(Exception):
    pass


class Walk:
    """A toy run: a random walk whose state (position, random stream) a checkpoint holds."""

    def __init__(self, seed: int, saved: dict | None = None):
        self.rng = np.random.default_rng(seed)
        self.done, self.position = 0, 0
        self.steps: list[int] = []
        self.points: list[int] = []
        self.saves: list[int] = []
        self.checkpoint: dict | None = None
        if saved is not None:
            self.done, self.position, self.points = saved["done"], saved["position"], list(saved["points"])
            self.rng.bit_generator.state = saved["rng"]

    def step(self, size: int) -> None:
        self.steps.append(size)
        self.position += int(self.rng.integers(-1, 2, size).sum())
        self.done += size

    def curve_point(self) -> None:
        self.points.append(self.done)

    def save(self) -> None:
        self.saves.append(self.done)
        self.checkpoint = {
            "done": self.done,
            "position": self.position,
            "points": list(self.points),
            "rng": self.rng.bit_generator.state,
        }


def walk(task: Walk, total: int = 100, batch: int = 7, every: int | None = None, after=None) -> Walk:
    run_loop.run(
        task,
        total,
        "walk",
        "step",
        next_size=lambda done: run_loop.step_size(done, total, batch, 20),
        is_point=lambda done: done % 20 == 0 or done == total,
        checkpoints=run_loop.Checkpoints(every=every, at_points=every is None, first=True),
        first_point=task.done == 0 and not task.points,
        after_step=after,
    )
    return task


@pytest.mark.parametrize(
    "done, total, batch, periods",
    list(itertools.product(range(0, 30, 3), (30, 31), (1, 4, 50), ((7,), (5, 6), (None,)))),
)
def test_a_step_never_crosses_a_period_nor_the_end(done, total, batch, periods):
    """Against brute force: the step is the largest size up to ``batch`` whose games stay
    within the budget and pass no multiple of any period before their last game."""
    size = run_loop.step_size(done, total, batch, *periods)
    crosses = [(done // p + 1) * p for p in periods if p is not None]
    brute = max(k for k in range(1, batch + 1) if done + k <= total and all(not (done < m < done + k) for m in crosses))
    assert size == brute


def test_curve_points_and_checkpoints_fall_where_declared():
    task = walk(Walk(1))
    assert task.points == [0, 20, 40, 60, 80, 100]
    assert task.saves == [0, 20, 40, 60, 80, 100]  # at every point, the first one included
    assert sum(task.steps) == 100 and max(task.steps) <= 7
    counted = walk(Walk(1), every=14)
    # by count: after the step reaching or passing each multiple of 14 (steps stop at points only)
    assert counted.saves == [0, 14, 34, 47, 60, 74, 87, 100]
    assert counted.points == task.points


def test_a_checkpoint_by_time_is_written_when_the_time_has_passed(monkeypatch):
    clock = iter(range(0, 10**6, 10))  # ten seconds pass at every reading
    monkeypatch.setattr(run_loop.time, "perf_counter", lambda: next(clock))
    task = Walk(2)
    run_loop.run(
        task,
        30,
        "walk",
        "step",
        next_size=lambda done: 5,
        is_point=lambda done: False,
        checkpoints=run_loop.Checkpoints(seconds=15.0),
    )
    assert task.saves == [10, 20, 30]  # every other step (20 s after the last save), and the end
    never = Walk(2)
    run_loop.run(never, 30, "w", "s", lambda done: 5, lambda done: False, run_loop.Checkpoints(seconds=10**9))
    assert never.saves == [30]  # only the end


@pytest.mark.parametrize("stop", [1, 6, 11, 15])
def test_an_interrupted_run_resumed_from_its_last_checkpoint_ends_as_the_whole_run(stop):
    whole = walk(Walk(3), every=None)
    cut = Walk(3)

    def interrupt():
        if len(cut.steps) == stop:
            raise Interrupted

    with pytest.raises(Interrupted):
        walk(cut, after=interrupt)
    resumed = walk(Walk(3, saved=cut.checkpoint))
    assert (resumed.done, resumed.position, resumed.points) == (whole.done, whole.position, whole.points)


def test_changed_settings_are_listed_in_one_bounded_line():
    saved = {"a": 1, "b": {"c": [1, 2]}, "d": "x", "e": 5}
    current = {"a": 2, "b": {"c": [1, 3]}, "d": "x", "e": 6}
    assert run_loop.differences(saved, current) == "a was 1, now 2, b.c[1] was 2, now 3, e was 5, now 6"
    assert run_loop.differences({**saved, "f": 0}, {**current, "f": 1}).endswith("(and more)")
    text = run_loop.differences({"gen_x": 1}, {"gen_x": 2}, "{name} {old} (this run: {new})", str.upper)
    assert text == "GEN_X 1 (this run: 2)"
    hostile = run_loop.differences({"k\x1b[2J": "y" * 10**6}, {})
    assert len(hostile) < 250 and "\x1b" not in hostile


def test_an_evolution_resumed_with_other_options_lists_every_change(tmp_path):
    game = get_game("dtd")
    config = EvolveConfig(genome="fsm", protocol="round-robin", generations=2, population=4, games_per_pair=2)
    evolve(game, config, seed=1, out=tmp_path)
    other = EvolveConfig(**{**config.__dict__, "games_per_pair": 3, "elite": 1, "generations": 3})
    with pytest.raises(FsmarenaError) as refused:
        evolve(game, other, seed=1, out=tmp_path, resume=True)
    message = str(refused.value)
    assert "--elite 2 (this run: 1), --games-per-pair 2 (this run: 3)" in message and "\n" not in message
    assert "generations" not in message  # a resumed run may extend its budget
