"""A player from outside fsmarena: train through the Gymnasium environment, play with fsmarena.

Step 1 trains an agent that knows nothing of fsmarena: Monte Carlo control in about twenty
lines of numpy, against the plain Gymnasium API of ``fsmarena/DivideTheDollar-v0`` (one seat
of divide-the-dollar against opponents we choose).  It asks for the game's tabular state in
the observation (``index_in_observation=True``) and reads its ``index`` and ``action_mask``
(the legal actions), and nothing else.

Step 2 wraps the trained agent as an fsmarena player: its greedy choice in every state is a
*table policy*, a player kind every game has, saved as a player JSON file.  From then on the
toolkit treats it like any player of its own::

    python docs/examples/outside_agent.py --episodes 20000 --out outside-agent.json
    fsmarena play dtd outside-agent.json random
    fsmarena tournament dtd outside-agent.json random always-large --out tournament
    fsmarena study docs/examples/outside_agent_study.toml --scale test --out study

(the study names the file as a competitor of method ``builtin``, ``player =
"outside-agent.json"``, read from the working directory).  An agent that is not a table
(a neural network, say) becomes a player the same way once it is distilled into one: ask it
for its action in every state and save the answers.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import gymnasium
import numpy as np

import fsmarena  # noqa: F401 - registers the fsmarena/... environments
from fsmarena.games import get_game
from fsmarena.games.players import TablePolicy, save_player

ENV_ID = "fsmarena/DivideTheDollar-v0"


# ---- step 1: an agent written against the Gymnasium API only -----------------------------------


def train(episodes: int, seed: int = 0, opponents: object = "random", epsilon: float = 0.1) -> np.ndarray:
    """Monte Carlo control for ``episodes`` episodes: epsilon-greedy over the legal actions,
    and every state and action an episode visited moves its value towards the episode's
    reward (a running average: the +-1 rewards of a card game are noisy).  Returns the value
    table, one row per state index."""
    env = gymnasium.make(ENV_ID, opponents=opponents, index_in_observation=True)
    q = np.zeros((env.observation_space["index"].n, env.action_space.n))
    visits = np.zeros_like(q)
    rng = np.random.default_rng(seed)
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed if episode == 0 else None)
        done, visited, reward = False, [], 0.0
        while not done:
            state, legal = int(obs["index"]), np.flatnonzero(obs["action_mask"])
            if rng.random() < epsilon:
                action = int(rng.choice(legal))
            else:
                action = int(legal[np.argmax(q[state, legal])])
            visited.append((state, action))
            obs, reward, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
        for state, action in visited:  # the reward comes at the end of the game
            visits[state, action] += 1
            q[state, action] += (reward - q[state, action]) / visits[state, action]
    env.close()
    return q


# ---- step 2: the trained agent as an fsmarena player ---------------------------------------------


def as_player(q: np.ndarray, label: str = "outside-mc") -> TablePolicy:
    """The greedy policy of ``q``: one action per state index (fsmarena's players fall back to
    the first legal action if a table's action is illegal in some state)."""
    return TablePolicy(np.argmax(q, axis=1).astype(np.int64), label=label)


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20000, help="training episodes (default 20000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("outside-agent.json"), help="player file to write")
    args = parser.parse_args(argv)
    q = train(args.episodes, args.seed)
    save_player(as_player(q), get_game("dtd"), args.out)
    print(f"wrote {args.out}: try  fsmarena play dtd {args.out} random")
    return args.out


if __name__ == "__main__":
    main()
