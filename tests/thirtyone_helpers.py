"""Helpers for the 31 tests: card names, scripted deals and scripted players."""

from __future__ import annotations

import numpy as np

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
    records (seat, phase, round turn) of every decision."""

    def __init__(self, *scripts: list[str]):
        self.scripts = [list(s) for s in scripts]
        self.calls: list[tuple[int, int, int]] = []

    def __call__(self, seat, obs, rows):
        self.calls.append((seat, obs.phase, int(obs.round_turn[0])))
        mask = obs.mask[0]
        if self.scripts[seat]:
            action = SHORT[self.scripts[seat].pop(0)]
            assert mask[action], f"seat {seat}: scripted {ACTION_NAMES[action]} is illegal here"
        elif obs.phase == DISCARD:
            action = 7 if mask[7] else 6
        else:
            action = KNOCK if mask[KNOCK] else 0
        return np.array([action])


def play_scripted(decks: list[list[int]], scripts: Scripts, **config):
    """Play one game with scripted deck orders per round (later rounds shuffled) and scripted
    seats; returns (outcome, round log)."""
    game = ThirtyOne(ThirtyOneConfig(**config))
    log: list = []
    order = np.array(decks)[None, :, :]
    outcome = game.play_engine(1, np.random.default_rng(0), scripts, deck_order=order, log=log)
    return outcome, [entry[1:] for entry in log]
