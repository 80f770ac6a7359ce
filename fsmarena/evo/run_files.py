"""The files of an evolution run: the logbook as CSV, the final outputs (best player,
population, logbook) and the checkpoint, written atomically and read back checked in full
(settings, every row, every genome) so that a resumed run replays the uninterrupted one.
"""

from __future__ import annotations

import math
from pathlib import Path

from deap import tools

from fsmarena import run_loop
from fsmarena.csvfile import write_csv
from fsmarena.evo.evolve_state import EvolveResult, State
from fsmarena.evo.genome import GenomeSpec
from fsmarena.evo.operators import Individual, hall_of_fame
from fsmarena.evo.settings import EvolveConfig, option_name, resolved_count
from fsmarena.fileio import Fields, read_json, write_json
from fsmarena.games.base import Game, config_to_dict
from fsmarena.games.players import player_from_json, player_to_json, save_player
from fsmarena.parallel import restore_rng

FORMAT_VERSION = 1
CHECKPOINT = "checkpoint.json"
LOGBOOK_COLUMNS = ("gen", "games", "mean", "std", "min", "max", "vs_random", "seconds", "champion_score")
#: configuration fields a resumed run may change (they do not alter what is computed)
RESUMABLE_CHANGES = ("generations", "checkpoint_every")
#: fields added after checkpoints were first written: the value an older checkpoint meant
ADDED_FIELDS = {"exact_fitness": False}


# ---- files ----------------------------------------------------------------------------------


def write_logbook(path: Path, logbook: tools.Logbook) -> None:
    """The logbook as CSV, written atomically (:func:`fsmarena.csvfile.write_csv`)."""
    write_csv(path, LOGBOOK_COLUMNS, [{c: record.get(c) for c in LOGBOOK_COLUMNS} for record in logbook])


def write_outputs(out: Path, result: EvolveResult) -> None:
    """``best.json``, ``population.json`` and ``logbook.csv`` of a finished run."""
    game = result.game
    save_player(result.best, game, out / "best.json")
    members = [
        {"fitness": float(f), "player": player_to_json(p, game)}
        for f, p in zip(result.fitness, result.population_players())
    ]
    fame = [
        {
            "fitness": ind.fitness.values[0],
            "player": player_to_json(result.spec.player(ind.genome[None], label=f"hall of fame {i}"), game),
        }
        for i, ind in enumerate(result.hall_of_fame)
    ]
    write_json(
        out / "population.json",
        {
            "format_version": FORMAT_VERSION,
            "kind": "evolve-population",
            "game": game.name,
            "generation": result.generation,
            "config": result.config.to_dict(),
            "seed": result.seed,
            "members": members,
            "hall_of_fame": fame,
        },
    )
    write_logbook(out / "logbook.csv", result.logbook)


def save_checkpoint(path: Path, game: Game, config: EvolveConfig, seed: int, state: State) -> None:
    """Write everything the run needs to continue exactly (atomically)."""
    write_json(
        path,
        {
            "format_version": FORMAT_VERSION,
            "kind": "evolve-checkpoint",
            "game": game.name,
            "game_config": config_to_dict(game.config),
            "config": config.to_dict(),
            "seed": seed,
            "generation": state.generation,
            "games": state.games,
            "seconds": state.seconds,
            "population": state.genomes.tolist(),
            "fitness": state.fitness.tolist(),
            "hall_of_fame": [{"genome": ind.genome.tolist(), "fitness": ind.fitness.values[0]} for ind in state.hof],
            "logbook": [dict(record) for record in state.logbook],
            "rng": state.rng.bit_generator.state,
            "panel": [player_to_json(p, game) for p in state.panel],
        },
    )


def load_checkpoint(path: Path, game: Game, spec: GenomeSpec, config: EvolveConfig, seed: int) -> State:
    """Validate a checkpoint against this run's game, options and seed, and restore it."""
    source = f"checkpoint {path}"
    fields = Fields(read_json(path, "checkpoint"), source)
    version = fields.get("format_version", int)
    if version != FORMAT_VERSION:
        raise fields.fail(f"unsupported format_version {version} (this fsmarena reads {FORMAT_VERSION})")
    if fields.get("kind", str) != "evolve-checkpoint":
        raise fields.fail("not an evolution checkpoint")
    if fields.get("game", str) != game.name:
        raise fields.fail(f"written for the game '{fields.get('game', str)}', not '{game.name}'")
    if fields.get("game_config", dict) != config_to_dict(game.config):
        raise fields.fail("written with other game parameters (--param)")
    if fields.get("seed", int) != seed:
        raise fields.fail(f"written with --seed {fields.get('seed', int)}, not {seed}")
    saved = fields.get("config", dict)
    current = {key: value for key, value in config.to_dict().items() if key not in RESUMABLE_CHANGES}
    # a field added since the checkpoint was written: the value it meant then; another missing field differs
    before = {key: saved[key] if key in saved else ADDED_FIELDS.get(key, "(missing)") for key in current}
    if before != current:
        changed = run_loop.differences(before, current, "{name} {old} (this run: {new})", option_name)
        raise fields.fail(f"written with {changed}: resume with the same options")
    generation = fields.int_in("generation", 1, 10**9)
    if generation > resolved_count(config.generations, "generations"):
        raise fields.fail(f"already at generation {generation}, beyond --generations {config.generations}")
    genomes = spec.check(fields.get("population", list), f"{source}: population")
    if len(genomes) != config.population:
        raise fields.fail(f"population has {len(genomes)} members, expected {config.population}")
    fitness = fields.float_array("fitness", (config.population,))
    hof = hall_of_fame(config.hall_of_fame)
    entries = fields.get("hall_of_fame", list)
    if not 1 <= len(entries) <= config.hall_of_fame:
        raise fields.fail("hall_of_fame has the wrong number of members")
    individuals = []
    for number, raw in enumerate(entries):
        entry = Fields(raw, f"{source}: hall of fame member {number}")
        genome = spec.check([entry.get("genome", list)], entry.source)[0]
        individuals.append(Individual(genome, entry.number_in("fitness", -math.inf, math.inf)))
    hof.items = individuals
    hof.keys = [ind.fitness for ind in reversed(individuals)]
    logbook = tools.Logbook()
    logbook.header = list(LOGBOOK_COLUMNS)
    records = fields.get("logbook", list)
    if len(records) != generation:
        raise fields.fail(f"logbook has {len(records)} records for {generation} generations")
    for number, raw in enumerate(records):
        record = Fields(raw, f"{source}: logbook record {number}")
        if record.get("gen", int) != number:
            raise record.fail("generations out of order")
        values: dict[str, float | None] = {"gen": number, "games": record.int_in("games", 0, 2**62)}
        for key in ("mean", "std", "min", "max", "seconds"):
            values[key] = record.number_in(key, -math.inf, math.inf)
        values["vs_random"] = None if raw.get("vs_random") is None else record.number_in("vs_random", 0.0, 1.0)
        values["champion_score"] = (
            None if raw.get("champion_score") is None else record.number_in("champion_score", -math.inf, math.inf)
        )
        logbook.record(**{c: values[c] for c in LOGBOOK_COLUMNS})
    rng = restore_rng(fields.get("rng", dict), source)
    panel = []
    for number, raw in enumerate(fields.get("panel", list)):
        panel.append(player_from_json(raw, game, f"{source}: panel player {number}"))
    if len(panel) != len(config.panel):
        raise fields.fail("the stored panel does not match --panel")
    return State(
        generation,
        genomes,
        fitness,
        hof,
        logbook,
        rng,
        fields.int_in("games", 0, 2**62),
        fields.number_in("seconds", 0.0, math.inf),
        panel,
    )
