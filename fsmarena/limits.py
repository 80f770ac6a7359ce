"""Every explicit limit fsmarena enforces, in one place, and the one check that names them.

Limits keep a mistyped or hostile value from turning into gigabytes of memory, hours of work
or an integer overflow: a value beyond its limit is refused with one line naming the limit
(``--games is 10^15; the limit is 1,000,000,000 (MAX_GAMES)``) *before* any work starts or any
file is written.  docs/limits.md lists them with the errors they give.  A game's own size limits
(deck, cards, players) live in its rules' validation (``fsmarena/games/<name>/game.py``), next to the
tables they protect.
"""

from __future__ import annotations

import math
import os

from fsmarena.errors import FsmarenaError

# ---- files read -------------------------------------------------------------------------------
#: player files, evolution checkpoints, study result files (bytes)
MAX_JSON_BYTES = 64 * 1024 * 1024
#: study definition files (bytes)
MAX_TOML_BYTES = 1024 * 1024
#: deepest nesting of arrays/objects in a JSON file (fsmarena writes at most about 6)
MAX_NESTING = 100
#: arrays and objects in a JSON file (each costs about 60 bytes of memory once parsed, for a
#: few bytes of text: this bounds a parsed file's memory to a few hundred megabytes)
MAX_JSON_CONTAINERS = 2_000_000
#: memory a parsed JSON file may take beyond its text, estimated before and while parsing (strings
#: and containers about 72 bytes each, numbers 40, small integers 8): 60 MB of short strings
#: took a gigabyte to refuse; a legitimate file (an evolution checkpoint of MAX_GENOME_ENTRIES
#: small integers, the 31 agent's networks) stays far below
MAX_JSON_PARSED_BYTES = 384 * 1024 * 1024
#: digits of a JSON integer (a random generator state needs 39)
MAX_JSON_INT_DIGITS = 40
#: a training checkpoint (.npz) on disk, and all its arrays once read (bytes)
MAX_CHECKPOINT_BYTES = 1024 * 1024 * 1024
#: arrays in a checkpoint
MAX_CHECKPOINT_MEMBERS = 256
#: inflated / compressed size of one compressed checkpoint member (fsmarena stores them uncompressed)
MAX_COMPRESSION_RATIO = 100
#: any entry of a checkpoint's integer tables (visit counts, step counts): MAX_EPISODES games of
#: up to a million decisions each stay below it, and a resumed run can add to it for years
#: without reaching 2^63 (where an int64 count wraps negative)
MAX_TABLE_COUNT = 2**53

#: any count a stored result holds (games consumed, wins, machine sizes: fsmarena.stored_values)
#: beyond its own tighter limit: exact in a 64-bit float, as MAX_TABLE_COUNT, far beyond any run
MAX_STORED_COUNT = 2**53

# ---- budgets and workers ----------------------------------------------------------------------
#: games of one match (play --games, tournament games per pair, evaluation and panel games)
MAX_GAMES = 10**9
#: training games (train --episodes)
MAX_EPISODES = 10**9
#: any other whole-number option (generations, tests, periods, sizes): fits an int32
MAX_COUNT = 10**9
#: individuals of an evolved population (round robins cost population squared)
MAX_POPULATION = 10_000
#: machine states of an evolved FSM or BDA
MAX_STATES = 1024
#: reachable states of a machine drawing (beyond, a state is too small to name on a page-wide
#: figure; DOT and GraphML exports have no such limit)
MAX_DRAWN_STATES = 64
#: seeds (numpy takes any size; a 63-bit limit keeps them printable and portable)
MAX_SEED = 2**63 - 1
#: bench --scale (a factor on every case's work)
MAX_BENCH_SCALE = 1000.0


def max_jobs() -> int:
    """Worker processes: 4 per core, at most 64 (more only costs memory and start-up time)."""
    return min(64, 4 * (os.cpu_count() or 1))


def check(value: int | float, limit: int | float, what: str, name: str) -> None:
    """Refuse ``value`` above ``limit`` (or not a finite number) with one line naming the limit."""
    if isinstance(value, float) and not math.isfinite(value):
        raise FsmarenaError(f"{what} must be a finite number, got {value}")
    if value > limit:
        raise FsmarenaError(f"{what} is {shown(value)}; the limit is {shown(limit)} ({name})")


def shown(value: int | float) -> str:
    """A number for an error message: thousands separated, huge integers as a power of ten."""
    if isinstance(value, int) and abs(value) >= 10**12:
        return f"about 10^{len(str(abs(value))) - 1}"
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


# ---- values echoed in error messages ------------------------------------------------------------
#: characters of a value read from a file that an error message repeats (the rest is cut with
#: "..."), so that one tampered field cannot turn the one-line error into megabytes of stderr
MAX_SHOWN_CHARS = 80
#: differing fields a "made with different settings" error lists (then "and N more")
MAX_SHOWN_DIFFERENCES = 3

# ---- evolution and network sizes --------------------------------------------------------------
# Products of options that are each within their own limit: checked where the options meet
# (evo.settings.EvolveConfig.validate, rl.network_training.NetworkSettings.check), before any work.

#: games of one evolution generation (population x opponents x games for thesis, ordered pairs x
#: games for round-robin, population x panel x seats x games for panel): a generation's seating
#: is held in memory, 16 to 80 bytes a game, so MAX_GAMES (a billion) would need up to 80 GB
MAX_GENERATION_GAMES = 10**7
#: parallel tasks of one generation (its games / --chunk): each task costs about 1 KB to plan
MAX_GENERATION_TASKS = 100_000
#: genome entries held at once (population, plus the thesis protocol's random opponents, times the
#: entries of one genome): 8 bytes each in memory, and the population must fit a checkpoint
MAX_GENOME_ENTRIES = 10**7
#: point mutations of one child (--mutations): each is a step of a Python loop, per child and
#: generation; a few hundred already make a child a random genome
MAX_MUTATIONS = 10_000
#: hidden layers of the 31 agent's network (train --algo mlp --hidden; its player file reader's limit)
MAX_HIDDEN_LAYERS = 8
#: units of one hidden layer (likewise)
MAX_HIDDEN_UNITS = 4096
#: weights and biases of the larger of the 31 agent's two networks: the policy file stores both
#: as indented JSON text (about 33 bytes a number: 2 million numbers took 64 MB) and must stay
#: under MAX_JSON_BYTES to be read back, with room to spare; the training checkpoint (weights
#: and two Adam moments, about 24 bytes a parameter) then stays far under MAX_CHECKPOINT_BYTES
MAX_MLP_PARAMETERS = 500_000
#: games of one training batch (train --batch K, the 31 agent's batch): a batch is played in one
#: engine call per seat and learned from at once, so its games and their decisions are all held
#: in memory (a few hundred bytes to a few kilobytes a game; --batch 10^8 needed gigabytes)
MAX_BATCH_GAMES = 1_000_000
#: the 31 agent's --epochs times its --batch: each epoch passes over every decision of the batch
#: again, so this product, not either option alone, is the work of one update
MAX_EPOCH_GAMES = 10**7
#: entries (states x actions) of one learner's dense tables: about 25 bytes each (values, counts,
#: the legal mask, Monte Carlo's sums), so at most about 420 MB; the default 15-card Stupide
#: Vautour needs 10.8 million, 16 cards would need 24 million (767 MB)
MAX_TABLE_ENTRIES = 2**24
