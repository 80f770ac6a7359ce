"""Helpers for the 31 tests: card names, scripted deals and scripted players, and games played on
the kernel (through the driver, read through its ``trace`` hook) and replayed on the
plain-Python reference (:mod:`reference_replay`), which must agree with them decision by
decision (every observation part it defines) and tells how each round ended."""

from __future__ import annotations

import numpy as np
from kernel_helpers import part_rows
from reference_replay import Replayed, reference_agrees

from fsmarena.games.base import Outcome
from fsmarena.games.driver import driver_for
from fsmarena.games.thirtyone import kernel as k31
from fsmarena.games.thirtyone.game import ACTION_NAMES, DISCARD, KNOCK, ThirtyOne, ThirtyOneConfig

SUITS = "SHDC"
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SHORT = {"deck": 0, "discard": 1, "knock": 2, "dg": 3, "d0": 4, "d1": 5, "d2": 6, "dd": 7}


def card(name: str) -> int:
    """'AS' -> ace of spades (suit S H D C = 0..3, rank 2..A = 0..12)."""
    return SUITS.index(name[-1]) * 13 + RANKS.index(name[:-1])


def cards(names: str) -> list[int]:
    return [card(n) for n in names.split()]


def deck(*groups: str) -> list[int]:
    """A full 52-card order: the named cards in order, then every other card ascending."""
    named = [c for g in groups for c in cards(g)]
    assert len(set(named)) == len(named), "a card is named twice"
    return named + [c for c in range(52) if c not in named]


class Scripts:
    """Scripted seats for one game (n=1): each seat plays its list of actions, then knocks when
    it may (drawing from the deck and throwing the drawn card back otherwise).  ``calls``
    records (seat, phase, round turn) of every decision, ``drawn`` the card drawn at every
    discard decision."""

    def __init__(self, *scripts: list[str]):
        self.scripts = [list(s) for s in scripts]
        self.calls: list[tuple[int, int, int]] = []
        self.drawn: list[int] = []

    def __call__(self, seat, obs, rows):
        self.calls.append((seat, obs.phase, int(obs.round_turn[0])))
        mask = obs.mask[0]
        if obs.phase == DISCARD:
            self.drawn.append(int(obs.drawn[0]))
        if self.scripts[seat]:
            action = SHORT[self.scripts[seat].pop(0)]
            assert mask[action], f"seat {seat}: scripted {ACTION_NAMES[action]} is illegal here"
        elif obs.phase == DISCARD:
            action = 7 if mask[7] else 6
        else:
            action = KNOCK if mask[KNOCK] else 0
        return np.array([action])


class GameLog:
    """What the driver's ``trace`` hook shows of ``n`` games, read at once (parts are read
    from the games' states on first use): per game, every seat's decisions as the kernel tests
    log them ``(index, features, mask, encodings, action)`` and their parts as shown ``{name:
    (kind, value)}`` (unless ``observe`` is False), and the ``(seat, action)`` of every
    decision in order."""

    def __init__(self, game: ThirtyOne, n: int, observe: bool = True):
        self.game, self.observe = game, observe
        self.decisions: list[dict[int, list]] = [{} for _ in range(n)]
        self.parts: list[dict[int, list]] = [{} for _ in range(n)]
        self.order: list[list[tuple[int, int]]] = [[] for _ in range(n)]

    def trace(self, seat, rows, obs, actions) -> None:
        if not self.observe:
            for j, g in enumerate(np.asarray(rows).tolist()):
                self.order[g].append((seat, int(actions[j])))
            return
        parts = {name: part_rows(getattr(obs, name), obs.n) for name in obs._parts}  # noqa: SLF001 - every part
        for j, g in enumerate(np.asarray(rows).tolist()):
            row = {name: None if v is None else (v[0], v[1][j]) for name, v in parts.items()}
            codes = [row[name][1] for name in self.game.encodings]
            action = int(actions[j])
            entry = (row["index"][1], row["features"][1], row["mask"][1], codes, action)
            self.decisions[g].setdefault(seat, []).append(entry)
            self.parts[g].setdefault(seat, []).append(row)
            self.order[g].append((seat, action))


def script_deals(config: ThirtyOneConfig, script) -> np.ndarray:
    """The kernel deals of scripted rows (each the deck orders of the first rounds, optionally
    followed by the stream's seed; the kernel's ``scripted``)."""
    return k31.scripted(config, np.atleast_2d(np.asarray(script, dtype=np.int64)))[1]


def play_and_replay(
    game: ThirtyOne, decide, deals: np.ndarray, replay: bool = True, observe: bool = True
) -> tuple[Outcome, GameLog, list]:
    """Play ``deals`` (kernel deals, one game per row) on the driver asking ``decide``; with
    ``replay``, the reference replays every game with the actions the driver's players chose
    and must agree with it at every decision and at the end.  Returns the outcome, the log
    (every observation read when ``observe`` or ``replay``) and the replays
    (:class:`reference_replay.Replayed`, ``rounds`` included)."""
    log = GameLog(game, len(deals), observe or replay)
    outcome = game.play(len(deals), np.random.default_rng(0), decide, deals=deals, trace=log.trace)
    replays: list[Replayed] = []
    if replay:
        for g in range(len(deals)):
            rewards, scores = outcome.rewards[g], outcome.scores[g]
            replays.append(reference_agrees(game, deals[g], log.decisions[g], rewards, scores, g, log.parts[g]))
    return outcome, log, replays


def rounds_of(replayed: Replayed) -> list[tuple]:
    """``(round, kind, knocker, lives)`` of every round of a replayed game."""
    return [(r, record.kind, record.knocker, tuple(record.lives)) for r, record in enumerate(replayed.rounds)]


def play_scripted(decks: list[list[int]], decide, **config):
    """Play one game on the kernel with scripted deck orders for its first rounds (later
    rounds from the fixed stream of a seedless script) and the scripted ``decide``; returns
    (outcome, rounds): how each round went, ``(round, kind, knocker, lives)``, as the
    reference replaying the game (and agreeing with it at every decision) tells it."""
    game = ThirtyOne(ThirtyOneConfig(**config))
    deals = script_deals(game.config, np.concatenate(decks)[None])
    outcome, _, replays = play_and_replay(game, decide, deals)
    return outcome, rounds_of(replays[0])


def random_deals(game: ThirtyOne, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` kernel deals as the driver draws them."""
    return driver_for(game).deals(n, rng)
