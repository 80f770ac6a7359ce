"""The PettingZoo and Gymnasium environments: the libraries' own checkers, games played
through the environments (on the kernel stepper) equal to the batched driver's on the same
deals, every part of every observation included, and to the plain-Python references, compiled opponents playing as the same players
asked in Python, no thread, and clear errors for bad input."""

from __future__ import annotations

import copy
import pickle
import re
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.wrappers import FlattenObservation, RecordEpisodeStatistics  # noqa: E402
from kernel_helpers import part_rows, scripted  # noqa: E402
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402
from reference_replay import has_reference, reference_agrees  # noqa: E402

from fsmarena.errors import FsmarenaError  # noqa: E402
from fsmarena.extras import install_hint  # noqa: E402
from fsmarena.games import available_games, get_game  # noqa: E402
from fsmarena.games.capabilities import SimultaneousMoves  # noqa: E402
from fsmarena.games.environments import IllegalAction, aec_env, env_id, gym_env, parallel_env, register_envs  # noqa: E402
from fsmarena.games.kernel import kernel_of  # noqa: E402
from fsmarena.games.players import FixedActionPlayer, Player, RandomPlayer, resolve_player, save_player  # noqa: E402
from fsmarena.games.stepper import Decision, KernelStepper, make_stepper  # noqa: E402
from fsmarena.rl.toy import ToyGame  # noqa: E402

GAMES = available_games()
SIMULTANEOUS = [name for name in GAMES if isinstance(get_game(name), SimultaneousMoves)]


def _quiet(check, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(*args, **kwargs)


# ---- the libraries' checkers, with every default ------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_make_and_check_env_with_defaults(name):
    """``gymnasium.make(id)`` with nothing else (421 included), Gymnasium's checker (which
    plays unmasked random actions: the default policy ends the episode on an illegal one) and
    the common wrappers, on every registered game."""
    env = gymnasium.make(env_id(name))
    _quiet(check_env, env.unwrapped)
    wrapped = FlattenObservation(RecordEpisodeStatistics(gymnasium.make(env_id(name))))
    assert wrapped.observation_space.shape[0] <= 4096  # no one-hot of the state index
    obs, _ = wrapped.reset(seed=0)
    done = False
    while not done:
        obs, _, terminated, truncated, info = wrapped.step(wrapped.action_space.sample())
        assert obs in wrapped.observation_space
        done = terminated or truncated
    assert "episode" in info
    env.close()
    wrapped.close()


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_checkers_with_defaults(name):
    _quiet(api_test, aec_env(name), num_cycles=100)
    _quiet(seed_test, lambda: aec_env(name), num_cycles=30)


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_parallel_checkers_with_defaults(name):
    _quiet(parallel_api_test, parallel_env(name), num_cycles=50)
    _quiet(parallel_seed_test, lambda: parallel_env(name), num_cycles=30)


def test_the_checkers_cover_the_simultaneous_games():
    assert {"vautour", "goofspiel"} <= set(SIMULTANEOUS)


def test_every_game_is_registered_under_its_class_name():
    ids = register_envs()
    assert env_id("dtd") == "fsmarena/DivideTheDollar-v0" and env_id("vautour") == "fsmarena/StupideVautour-v0"
    assert set(ids) == {env_id(name) for name in GAMES}
    assert all(i in gymnasium.registry for i in ids)


# ---- the same games as the driver and the reference --------------------------------------------


def _every_part(obs):
    """Every part of a one-row observation, by name, as (kind, value) (:func:`part_rows`)."""
    return {name: part_rows(getattr(obs, name), obs.n) for name in obs._parts}  # noqa: SLF001 - every part


def _driver_replay(game, deal, answers):
    """The batched driver on the kernel deal ``deal``, answering ``answers`` in order: every
    decision's seat and parts (read when asked), and the outcome."""
    seen, pending = [], iter(answers)

    def decide(seat, obs, rows):
        seen.append((seat, _every_part(obs)))
        return np.array([next(pending)])

    deals = np.asarray(deal).reshape(1, -1).copy()
    return seen, game.play(1, np.random.default_rng(12345), decide, deals=deals)


def _decisions(game, seen, answers):
    """The decisions of ``seen`` per seat as the kernel tests log them: ``(index, features,
    mask, encodings, action)``, and every decision's parts as ``{name: (kind, value)}``
    (:func:`reference_replay.check_views`)."""
    log: dict[int, list] = {}
    shown: dict[int, list] = {}
    for (seat, parts), action in zip(seen, answers):
        mask = parts["mask"][1][0] if parts["mask"] is not None else [True] * game.n_actions
        features = parts["features"][1][0] if game.feature_names else []
        codes = [parts[name][1][0] for name in game.encodings]
        log.setdefault(seat, []).append((parts["index"][1][0], features, mask, codes, action))
        shown.setdefault(seat, []).append({name: None if v is None else (v[0], v[1][0]) for name, v in parts.items()})
    return log, shown


def _stepper_plays_the_drivers_games(game, seeds):
    """Random legal answers (no chance action: the driver would draw it from another stream)
    on the stepper, then the same answers on the driver given the stepper's deal: the same
    seats see the same observations, every part by name, type and value, and the games end
    alike; the game's plain-Python reference replaying the answers agrees decision by
    decision (every part it defines too, as the stepper showed it) and on the outcome
    (:mod:`reference_replay`)."""
    module, stepper = kernel_of(game), KernelStepper(game)
    for seed in seeds:
        pick, seen, answers = np.random.default_rng(100 + seed), [], []
        turn = stepper.start(np.random.default_rng(seed))
        while isinstance(turn, Decision):
            obs = turn.observation
            seen.append((turn.seat, _every_part(obs)))
            mask = obs.mask if obs.mask is not None else np.ones((1, game.n_actions), dtype=bool)
            answers.append(int(pick.choice(scripted(module, mask[0]))))
            turn = stepper.answer(answers[-1])
        expected, outcome = _driver_replay(game, stepper.deal, answers)
        assert seen == expected, (game.config, seed)
        np.testing.assert_array_equal(turn.rewards, outcome.rewards[0])
        np.testing.assert_array_equal(turn.scores, outcome.scores[0])
        if has_reference(game):
            log, parts = _decisions(game, seen, answers)
            reference_agrees(game, np.asarray(stepper.deal), log, np.asarray(turn.rewards), turn.scores, seed, parts)


@pytest.mark.parametrize("name", GAMES)
def test_stepper_plays_the_drivers_and_the_references_game(name):
    _stepper_plays_the_drivers_games(get_game(name), range(6))


@pytest.mark.parametrize("name", ["dtd", "vautour", "goofspiel"])
@pytest.mark.parametrize("config_seed", range(4))
def test_stepper_plays_the_drivers_and_the_references_game_over_random_rules(name, config_seed):
    """The same over random rule parameters (the kernel's ``random_config``: deck, hand,
    cards, prizes, players, action sets)."""
    game = type(get_game(name))(kernel_of(get_game(name)).random_config(config_seed))
    _stepper_plays_the_drivers_games(game, range(3))


@pytest.mark.parametrize("name", ["421", "thirtyone"])
def test_stepper_plays_the_drivers_and_the_references_game_over_test_rules(name):
    """The same over the kernel's declared test configurations (31: 4 and 6 seats)."""
    for config in kernel_of(get_game(name)).test_configs():
        _stepper_plays_the_drivers_games(type(get_game(name))(config), range(2))


def _preferred(seat: int, n_actions: int) -> int:
    return (2 * seat + 1) % n_actions


def _driver_on_deal(game, players, deal, rng):
    """The batched driver itself playing ``players`` on the kernel deal ``deal``, the players
    drawing from ``rng``: the environments' oracle (the driver's own games are held to the
    references by tests/test_kernels.py and tests/contract/test_driver.py)."""
    memories = [p.begin(game, 1, None, rng) for p in players]

    def decide(seat, obs, rows):
        return players[seat].act(obs, memories[seat], rows, rng)

    deals = np.asarray(deal).reshape(1, -1).copy()
    return game.play(1, np.random.default_rng(12345), decide, deals=deals)


@pytest.mark.parametrize("name", GAMES)
def test_aec_env_plays_the_drivers_game(name):
    """Each seat plays its preferred action when legal, else the first legal one: exactly
    FixedActionPlayer; the environment's rewards equal the driver's on the episode's deal."""
    game = get_game(name)
    players = [FixedActionPlayer(_preferred(s, game.n_actions)) for s in range(game.n_seats)]
    env = aec_env(name)
    assert isinstance(env.stepper, KernelStepper)
    for seed in range(3):
        env.reset(seed=seed)
        expected = _driver_on_deal(game, players, env.stepper.deal, np.random.default_rng(0))
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, done, truncated, info = env.last()
            totals[agent] += reward
            if done:
                env.step(None)
                continue
            seat = int(agent.split("_")[1])
            mask = obs["action_mask"]
            want = _preferred(seat, game.n_actions)
            env.step(want if mask[want] else int(np.argmax(mask)))
        assert [totals[a] for a in env.possible_agents] == expected.rewards[0].tolist()
    env.close()


@pytest.mark.parametrize("name", ["dtd", "thirtyone", "vautour"])
@pytest.mark.parametrize("seat", [0, 1])
def test_gym_env_plays_the_drivers_game(name, seat):
    """The learner plays a fixed action, random opponents draw from the generator seeded by
    the episode generator's first draw: reward and scores equal the driver's on the episode's deal."""
    game = get_game(name)
    learner = FixedActionPlayer(_preferred(seat, game.n_actions))
    env = gym_env(name, opponents=RandomPlayer(), seat=seat)
    assert isinstance(env.stepper, KernelStepper)
    for seed in range(3):
        seats = [learner if s == seat else RandomPlayer() for s in range(game.n_seats)]
        obs, info = env.reset(seed=seed)
        players_rng = np.random.default_rng(int(np.random.default_rng(seed).integers(2**63)))
        expected = _driver_on_deal(game, seats, env.stepper.deal, players_rng)
        done = False
        while not done:
            mask = obs["action_mask"]
            want = learner.action
            obs, reward, done, truncated, info = env.step(want if mask[want] else int(np.argmax(mask)))
        assert reward == expected.rewards[0, seat]
        assert info["scores"] == expected.scores[0].tolist()
    env.close()


# ---- compiled and Python opponents: the same episodes -----------------------------------------


def _gym_episodes(env, seed, episodes):
    pick, seen = np.random.default_rng(seed + 1), []
    for episode in range(episodes):
        obs, info = env.reset(seed=seed if episode == 0 else None)
        seen.append((obs, info["seat"], info["opponents"]))
        done = False
        while not done:
            obs, reward, done, truncated, info = env.step(int(pick.choice(np.flatnonzero(obs["action_mask"]))))
            seen.append((obs, reward, info.get("scores")))
    env.close()
    return seen


@pytest.mark.parametrize(
    "name, opponents",
    [
        ("dtd", [RandomPlayer(), "always-large"]),
        ("thirtyone", ["greedy", RandomPlayer()]),
        ("vautour", [RandomPlayer(), FixedActionPlayer(9)]),
        ("goofspiel", ["match", "upbid"]),
    ],
)
def test_named_opponents_play_as_player_objects(name, opponents):
    """A pool of opponents named by their builtin names gives the same episodes as the same
    pool of player objects: every one asked in Python on the kernel's observations (a builtin
    runs its kernel code on the stepper's state)."""
    game = get_game(name)
    named = gym_env(name, opponents=opponents, seat="random")
    objects = [resolve_player(spec, game) if isinstance(spec, str) else spec for spec in opponents]
    python = gym_env(name, opponents=objects, seat="random")
    a, b = _gym_episodes(named, 3, 12), _gym_episodes(python, 3, 12)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_equal(x, y)


def test_every_opponent_plays_on_the_kernel():
    """A game-specific player object (which reads the game's own observation parts) plays on
    the kernel stepper; the stepper keyword takes auto and kernel, nothing else."""
    vautour = get_game("vautour")
    engine_kind = resolve_player("max", vautour)  # a player object of a game-specific kind
    env = gym_env("vautour", opponents=engine_kind, seat=0)
    assert isinstance(env.stepper, KernelStepper)
    obs, _ = env.reset(seed=0)
    done = False
    while not done:
        obs, reward, done, _, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert len(info["scores"]) == 2
    for kind in ("fast", "thread"):
        with pytest.raises(FsmarenaError, match=f"stepper must be one of auto, kernel, got '{kind}'"):
            make_stepper(vautour, kind)


def test_a_game_without_a_kernel_has_no_environment():
    """The learners' toy MDP has no kernel: asking for its environment is one clear error."""
    toy = ToyGame()
    for make in (lambda: gym_env(toy, opponents=None), lambda: aec_env(toy)):
        with pytest.raises(FsmarenaError, match="toy has no single-game kernel: the environments step a game's kernel"):
            make()


def test_parallel_env_equals_aec_env():
    """Observations of every seat each turn and the final rewards agree between the parallel
    API (replay probes) and the AEC API (the engine asking seat by seat)."""
    par = parallel_env("vautour", index_in_observation=True)
    aec = aec_env("vautour", index_in_observation=True)
    for seed in (3, 4):
        observations, _ = par.reset(seed=seed)
        aec.reset(seed=seed)
        rng = np.random.default_rng(seed + 100)
        while par.agents:
            actions = {}
            for agent in par.agents:
                assert aec.agent_selection == agent
                seen = aec.observe(agent)
                assert seen["observation"]["index"] == observations[agent]["observation"]["index"]
                np.testing.assert_array_equal(seen["action_mask"], observations[agent]["action_mask"])
                actions[agent] = int(rng.choice(np.flatnonzero(seen["action_mask"])))
                aec.step(actions[agent])
            observations, rewards, *_ = par.step(actions)
        assert rewards == {a: aec._cumulative_rewards[a] for a in aec.possible_agents}


def test_rule_parameters_are_settable():
    env = aec_env("vautour", params={"players": 3, "cards": 6, "prizes": "-1,1,2,3,4,5"})
    env.reset(seed=1)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert (
        env.action_space("player_0").n
        == get_game("vautour", {"cards": "6", "players": "3", "prizes": "-1,1,2,3,4,5"}).n_actions
    )
    env.close()
    assert gym_env("dtd", params={"hand_size": "4"}).game.config.hand_size == 4


# ---- threads ------------------------------------------------------------------------------------


def test_the_environments_start_no_thread():
    before = threading.active_count()
    for env in (aec_env("dtd"), gym_env("thirtyone"), parallel_env("goofspiel")):
        env.reset(seed=0)
        env.close()
    assert threading.active_count() == before


# ---- bad input ----------------------------------------------------------------------------------


def test_illegal_action_names_the_legal_ones():
    env = aec_env("vautour", illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalAction, match=r"player_0: action 99 is out of range \(0..21\)"):
        env.step(99)
    with pytest.raises(ValueError, match="whole number"):
        env.step(1.5)
    env.step(env.game.bid_action(3))
    env.step(env.game.bid_action(5))
    with pytest.raises(IllegalAction, match=rf"action {env.game.bid_action(3)} is illegal \(bid_3\)"):
        env.step(env.game.bid_action(3))
    env.close()


def test_gym_and_parallel_envs_refuse_actions_outside_the_mask():
    env = gym_env("vautour", opponents="max", seat=0, illegal_action="raise")
    obs, _ = env.reset(seed=0)
    with pytest.raises(IllegalAction, match=r"vautour seat 0: action 99 is out of range \(0..21\)"):
        env.step(99)
    with pytest.raises(IllegalAction, match=r"vautour seat 0: action 0 is illegal \(lowest\)"):
        env.step(0)  # an abstract action, not offered under the default action set
    env.close()
    par = parallel_env("goofspiel")
    observations, _ = par.reset(seed=0)
    legal = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
    with pytest.raises(IllegalAction, match="player_1: action 40 is out of range"):
        par.step({**legal, "player_1": 40})
    with pytest.raises(IllegalAction, match="no action for player_1"):
        par.step({"player_0": legal["player_0"]})
    par.close()


def test_unknown_game_and_environment_id():
    with pytest.raises(FsmarenaError, match="unknown game 'chess'"):
        aec_env("chess")
    with pytest.raises(gymnasium.error.Error, match="Nope"):
        gymnasium.make("fsmarena/Nope-v0")
    with pytest.raises(gymnasium.error.NameNotFound, match="Did you mean: `DivideTheDollar`"):
        gymnasium.make("fsmarena/DivideDollar-v0")
    with pytest.raises(FsmarenaError, match="stepper must be one of auto, kernel, got 'numba'"):
        aec_env("dtd", stepper="numba")


@pytest.mark.slow
def test_the_module_prefix_registers_the_ids():
    """``gymnasium.make("fsmarena.games.environments:fsmarena/...")`` works in a fresh interpreter."""
    code = "import gymnasium\nprint(gymnasium.make('fsmarena.games.environments:fsmarena/DivideTheDollar-v0').spec.id)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "fsmarena/DivideTheDollar-v0"
    with pytest.raises(FsmarenaError, match="unknown parameter 'hand'"):
        gym_env("dtd", params={"hand": 3})


def test_opponent_files_and_seats_are_checked(tmp_path):
    path = tmp_path / "dtd-player.json"
    save_player(FixedActionPlayer(0, "small_spoil"), get_game("dtd"), path)
    assert gym_env("dtd", opponents=[str(path), "random"]).pool[0].label == "always-small_spoil"
    with pytest.raises(FsmarenaError, match="for the game 'dtd', not 'vautour'"):
        gym_env("vautour", opponents=str(path))
    with pytest.raises(FsmarenaError, match="for the game 'dtd', not 'goofspiel'"):
        gymnasium.make(env_id("goofspiel"), opponents=["random", str(path)])
    with pytest.raises(FsmarenaError, match="one-player game"):
        gym_env("421", opponents="random")
    with pytest.raises(FsmarenaError, match="2-player game: give at least one opponent"):
        gym_env("dtd", opponents=[])
    with pytest.raises(FsmarenaError, match="seat must be 0..1"):
        gym_env("dtd", seat=2)
    with pytest.raises(FsmarenaError, match="turn-based"):
        parallel_env("dtd")


def test_missing_extra_is_a_clear_error():
    code = (
        "import sys; sys.modules['pettingzoo'] = None\n"
        "try:\n    import fsmarena.games.environments\nexcept ImportError as e:\n    print(e)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert install_hint("envs") in out


def test_the_tutorial_code_runs():
    """Every Python block of docs/environments.md runs as written."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "environments.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 3
    for number, block in enumerate(blocks):
        exec(compile(block, f"docs/environments.md block {number + 1}", "exec"), {})


# ---- registration -------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("module", ["fsmarena", "fsmarena.games.players"])
def test_importing_the_package_registers_every_id(module):
    """In a fresh interpreter, importing fsmarena (or any module of ``games``) is all
    ``gymnasium.make`` needs, with every default; registering imports no environment."""
    code = (
        f"import sys, gymnasium, {module} as m\n"
        "gymnasium.register_envs(m)\n"
        "assert 'fsmarena.games.environments' not in sys.modules\n"
        "ids = sorted(i for i in gymnasium.registry if i.startswith('fsmarena/'))\n"
        "for i in ids:\n    gymnasium.make(i).reset(seed=0)\n"
        "print(' '.join(ids))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == sorted(env_id(name) for name in GAMES)


# ---- pickling and copying ----------------------------------------------------------------------


def _gym_rest(env, obs, pick):
    """The rest of the episode from ``obs`` and one more (random legal actions of ``pick``)."""
    seen = []
    for _ in range(2):
        done = False
        while not done:
            obs, reward, done, _, info = env.step(int(pick.choice(np.flatnonzero(obs["action_mask"]))))
            seen.append((obs, reward, info))
        obs, info = env.reset()
        seen.append((obs, info))
    return seen


def _aec_rest(env, pick):
    seen = []
    for episode in range(2):
        if episode:
            env.reset()
        for agent in env.agent_iter():
            obs, reward, done, truncated, info = env.last()
            seen.append((agent, obs, reward, done, info))
            env.step(None if done else int(pick.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


def _copies(env):
    return [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]


@pytest.mark.parametrize("name", GAMES)
def test_gym_env_pickles_mid_episode(name):
    """A pickled or deep-copied environment continues the same episode, and the next one,
    exactly as the original does (same observations, rewards and infos: the opponents', the
    deal's and the seat choice's random streams travel with it)."""
    env = gymnasium.make(env_id(name), seat="random")
    obs, _ = env.reset(seed=4)
    pick = np.random.default_rng(0)
    obs, *_ = env.step(int(pick.choice(np.flatnonzero(obs["action_mask"]))))
    copies = _copies(env)
    expected = _gym_rest(env, obs, np.random.default_rng(9))
    for other in copies:
        np.testing.assert_equal(_gym_rest(other, obs, np.random.default_rng(9)), expected)
        other.close()
    env.close()


@pytest.mark.parametrize("name", GAMES)
def test_aec_env_pickles_mid_episode(name):
    env = aec_env(name)
    env.reset(seed=8)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    copies = _copies(env)
    expected = _aec_rest(env, np.random.default_rng(2))
    for other in copies:
        np.testing.assert_equal(_aec_rest(other, np.random.default_rng(2)), expected)


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_parallel_env_pickles_mid_episode(name):
    env = parallel_env(name)
    observations, _ = env.reset(seed=5)
    first = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
    observations, *_ = env.step(first)

    def rest(env, pick):
        seen, current = [], observations
        while env.agents:
            actions = {a: int(pick.choice(np.flatnonzero(o["action_mask"]))) for a, o in current.items()}
            current, *outcome = env.step(actions)
            seen.append((current, outcome))
        return seen

    copies = _copies(env)
    expected = rest(env, np.random.default_rng(1))
    for other in copies:
        np.testing.assert_equal(rest(other, np.random.default_rng(1)), expected)


# ---- observation spaces -------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_observations_lie_in_their_declared_spaces(name):
    """Over many random episodes and random rule parameters, every observation is inside
    the declared space (features in [0, 1], encodings in range); the state index is in the
    info and, on request, in the observation, where it is the same number."""
    kernel_module = kernel_of(get_game(name))
    if hasattr(kernel_module, "random_config"):
        configs = [kernel_module.random_config(seed) for seed in range(3)]
    else:
        configs = kernel_module.test_configs()[:3]
    for config_seed, config in enumerate(configs):
        game = type(get_game(name))(config)
        env = aec_env(game, index_in_observation=config_seed == 0)
        pick = np.random.default_rng(config_seed)
        for episode in range(40):
            env.reset(seed=episode)
            for agent in env.agent_iter():
                obs, _, done, _, info = env.last()
                assert obs in env.observation_space(agent), (agent, obs)
                if config_seed == 0 and not done:
                    assert obs["observation"]["index"] == info["index"]
                env.step(None if done else int(pick.choice(np.flatnonzero(obs["action_mask"]))))
        assert ("index" in env.observation_space("player_0")["observation"].spaces) == (config_seed == 0)
        env.close()
    features = env.observation_space("player_0")["observation"]["features"]
    assert features.low.min() == 0.0 and features.high.max() == 1.0


# ---- illegal actions -----------------------------------------------------------------------------


def _first_illegal_decision(env):
    """A seed and the legal moves (the first legal one on even seeds, random ones on odd
    seeds) after which the AEC agent to move has an illegal action; None if the game masks
    no action in 50 episodes."""
    pick = np.random.default_rng(0)
    for seed in range(50):
        env.reset(seed=seed)
        moves = []
        for _ in env.agent_iter():
            obs, _, done, _, _ = env.last()
            if done:
                break
            if not obs["action_mask"].all():
                return seed, moves
            legal = np.flatnonzero(obs["action_mask"])
            moves.append(int(legal[0] if seed % 2 == 0 else pick.choice(legal)))
            env.step(moves[-1])
    return None


@pytest.mark.parametrize("name", GAMES)
def test_an_illegal_action_loses_by_default(name):
    """The default policy: the mover gets -1, every other seat 0, the episode ends, and the
    info names the illegal action; under ``first-legal`` the game goes on exactly as if the
    first legal action had been played."""
    env = aec_env(name)
    found = _first_illegal_decision(env)
    if found is None:
        assert name in ("dtd", "ipd")  # games whose every action is always legal (their three, C and D)
        return
    seed, moves = found
    env.reset(seed=seed)
    for move in moves:
        env.step(move)
    mover = env.agent_selection
    obs = env.last()[0]
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {a: (-1.0 if a == mover else 0.0) for a in env.possible_agents}
    assert env.infos[mover]["illegal_action"] == illegal
    assert re.match(rf"{mover}: action {illegal} is illegal \(.+\); legal actions: ", env.infos[mover]["illegal_move"])
    np.testing.assert_array_equal(env.observe(mover)["action_mask"], obs["action_mask"])
    for _ in env.agent_iter():
        assert env.last()[2]  # every agent is done
        env.step(None)
    assert not env.agents

    replaced, played = aec_env(name, illegal_action="first-legal"), aec_env(name)
    for which, env in enumerate((replaced, played)):
        env.reset(seed=seed)
        for move in moves:
            env.step(move)
        env.step(illegal if which == 0 else int(np.flatnonzero(obs["action_mask"])[0]))
    assert replaced.infos[mover]["illegal_action"] == illegal
    assert replaced.agent_selection == played.agent_selection
    np.testing.assert_equal(replaced.last()[0], played.last()[0])


def test_an_illegal_action_loses_in_the_gym_and_parallel_envs():
    env = gym_env("vautour", seat=0)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(0)  # an abstract action, never legal by default
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] == 0 and "vautour seat 0: action 0 is illegal (lowest)" in info["illegal_move"]
    assert obs["action_mask"].any() and not obs["action_mask"][0]
    with pytest.raises(FsmarenaError, match="call reset"):
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    par = parallel_env("vautour", params={"players": 3})
    observations, _ = par.reset(seed=0)
    actions = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
    _, rewards, terminations, _, infos = par.step({**actions, "player_1": 0})
    assert rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}
    assert all(terminations.values()) and not par.agents and infos["player_1"]["illegal_action"] == 0


def test_actions_outside_the_action_space_raise_under_every_policy():
    for policy in ("lose", "raise", "first-legal"):
        env = gym_env("dtd", illegal_action=policy)
        env.reset(seed=0)
        for bad in (True, np.bool_(False), 1.0, "1", -1, 3, np.array([1, 2])):
            with pytest.raises(IllegalAction, match="dtd seat 0: "):
                env.step(bad)
        env.step(np.int64(1))  # a numpy integer is an action
        aec = aec_env("goofspiel", illegal_action=policy)
        aec.reset(seed=0)
        with pytest.raises(IllegalAction, match="the action must be a whole number, got True"):
            aec.step(True)


def test_steps_before_reset_and_unknown_agents_are_clear_errors():
    with pytest.raises(FsmarenaError, match="dtd: no episode in progress .* call reset"):
        aec_env("dtd").step(0)
    with pytest.raises(FsmarenaError, match="dtd: no episode in progress"):
        aec_env("dtd").observe("player_0")
    with pytest.raises(FsmarenaError, match="goofspiel: no episode in progress"):
        parallel_env("goofspiel").step({"player_0": 0, "player_1": 0})
    with pytest.raises(FsmarenaError, match="thirtyone: no episode in progress"):
        gym_env("thirtyone").step(0)
    par = parallel_env("goofspiel")
    observations, _ = par.reset(seed=0)
    legal = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
    with pytest.raises(IllegalAction, match=r"unknown agent 'player_7' \(agents: player_0, player_1\)"):
        par.step({**legal, "player_7": 0})


# ---- opponents that misbehave ---------------------------------------------------------------------


class _Answers(Player):
    """An opponent that answers ``answer`` (or, for ``"masked"``, the first illegal action)."""

    kind = "fixed-action"
    label = "bad"

    def __init__(self, answer):
        self.answer = answer

    def act(self, obs, memory, rows, rng):
        if isinstance(self.answer, str):
            return np.array([int(np.flatnonzero(~np.asarray(obs.mask).reshape(-1))[0])])
        return self.answer


@pytest.mark.parametrize(
    "answer, message",
    [
        (np.array([-(10**6)]), r"action -1000000 is out of range \(0..7\)"),
        (np.array([8]), r"action 8 is out of range"),
        ("masked", r"action \d is illegal \(.+\); legal actions:"),
        (np.array([True]), r"must be a whole number, got (np\.)?True"),
        (np.array([2.0]), r"must be a whole number, got (np\.float64\()?2\.0"),
        (np.array([1, 2]), "a player must answer one action for one game"),
        (None, "must be a whole number, got None"),
    ],
)
def test_a_misbehaving_opponent_is_a_clear_error(answer, message):
    """31 against an opponent object whose answer is no legal action: an IllegalAction naming
    it, never an IndexError or a crash of the compiled kernel, under every policy."""
    for policy in ("lose", "first-legal"):
        env = gym_env("thirtyone", opponents=_Answers(answer), seat=1, illegal_action=policy)
        with pytest.raises(IllegalAction, match=rf"thirtyone opponent 'bad' in seat 0: .*{message}"):
            env.reset(seed=0)
        env.close()


def test_the_kernel_stepper_refuses_out_of_range_answers():
    """``KernelStepper.answer(-10**6)`` used to crash the interpreter in the 31 kernel; in a
    fresh interpreter it is now a clear error and the game goes on."""
    code = (
        "import numpy as np\nfrom fsmarena.games import get_game\nfrom fsmarena.games.stepper import KernelStepper, IllegalAction\n"
        "s = KernelStepper(get_game('thirtyone'))\nturn = s.start(np.random.default_rng(0))\n"
        "for bad in (-10**6, 10**6, 8):\n"
        "    try:\n        s.answer(bad)\n    except IllegalAction as e:\n        print(e)\n"
        "print(s.turn == turn)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "seat 0: action -1000000 is out of range (0..7)",
        "seat 0: action 1000000 is out of range (0..7)",
        "seat 0: action 8 is out of range (0..7)",
        "True",
    ]
