"""The protocol registry (fsmarena/evo/registry.py): every evolution protocol declared once, read by evolve."""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np
import pytest

from fsmarena.cli import build_parser
from fsmarena.errors import FsmarenaError
from fsmarena.evo import registry
from fsmarena.evo.protocols import RoundRobinProtocol, protocol_class
from fsmarena.evo.run import EvolveConfig, evolve
from fsmarena.games import get_game


class Twin(RoundRobinProtocol):
    """The round robin under a second name (Pseudocode:: as round-robin)."""

    name = "robin-twin"


def evolve_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["evolve"]


def test_every_protocol_resolves_to_its_class_and_carries_its_pseudocode():
    registry.check_registry()
    for item in registry.PROTOCOLS:
        cls = protocol_class(item.name)
        assert cls.name == item.name
        doc = cls.__doc__ or ""
        assert "Pseudocode" in doc and "::" in doc.split("Pseudocode", 1)[1], item.name
        assert cls.games_counted, item.name


def test_two_protocols_of_one_name_are_a_programming_error(monkeypatch):
    monkeypatch.setattr(registry, "PROTOCOLS", registry.PROTOCOLS + registry.PROTOCOLS[:1])
    with pytest.raises(TypeError, match="share a name"):
        registry.check_registry()


def test_the_command_line_offers_exactly_the_registered_protocols():
    action = next(a for a in evolve_parser()._actions if a.dest == "protocol")
    assert tuple(action.choices) == registry.names()
    for item in registry.PROTOCOLS:
        assert f"{item.name}: {item.summary}" in action.help


def test_an_unknown_protocol_is_one_line_listing_the_known_ones():
    with pytest.raises(FsmarenaError, match=r"unknown protocol 'elo' \(known: thesis, round-robin, panel, score\)"):
        EvolveConfig(genome="fsm", protocol="elo").resolved()


def test_a_protocol_added_by_one_registry_line_evolves_like_the_one_it_copies(monkeypatch, tmp_path):
    """A registry line is all a new protocol needs: a second name for the round robin (its
    class subclassed only to carry the name) evolves exactly the same population, and the
    settings it declares are the only ones it takes."""

    twin = dataclasses.replace(
        registry.protocol("round-robin"), name="robin-twin", target="tests.test_protocol_registry:Twin"
    )
    monkeypatch.setattr(registry, "PROTOCOLS", registry.PROTOCOLS + (twin,))
    game = get_game("dtd")
    settings = dict(genome="fsm", generations=3, population=6, games_per_pair=2, curve_games=50)
    copied = evolve(game, EvolveConfig(protocol="robin-twin", **settings), seed=5)
    original = evolve(game, EvolveConfig(protocol="round-robin", **settings), seed=5)
    assert np.array_equal(copied.genomes, original.genomes)
    assert np.array_equal(copied.fitness, original.fitness)
    with pytest.raises(FsmarenaError, match="--opponents is only used by the thesis protocol, not robin-twin"):
        EvolveConfig(protocol="robin-twin", opponents=3, **settings).resolved(game)


def test_each_protocol_validates_its_own_settings():
    with pytest.raises(FsmarenaError, match="3 replaced individuals need a tournament of at least 6"):
        EvolveConfig(genome="fsm", protocol="thesis", replaced=3, tournament=5).resolved()
    with pytest.raises(FsmarenaError, match="--elite \\(6\\) must be smaller than the population \\(6\\)"):
        EvolveConfig(genome="fsm", protocol="round-robin", population=6, elite=6).resolved()
    with pytest.raises(FsmarenaError, match="needs at least one panel player"):
        EvolveConfig(genome="fsm", protocol="panel").resolved()
    with pytest.raises(FsmarenaError, match="--tournament must be between 2 and the population"):
        EvolveConfig(genome="fsm", protocol="thesis", tournament=1).resolved()
    EvolveConfig(genome="fsm", protocol="round-robin", tournament=1).resolved()  # the round robin can
