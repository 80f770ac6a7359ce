"""A Stable-Baselines3 agent trained on an fsmarena game, wrapped as an fsmarena player, saved.

Run it (it needs the deep extra: pip install -e '.[deep]'):

    python docs/examples/sb3_agent.py --episodes 300 --out sb3-agent.json
    fsmarena play vautour sb3-agent.json random --games 2000
    PYTHONPATH=docs/examples fsmarena study docs/examples/sb3_study.toml --scale test --out study

1. **Train with Stable-Baselines3 alone.** sb3-contrib's MaskablePPO plays one seat of
   two-player Stupide Vautour against ``random`` in fsmarena's Gymnasium environment, observed
   through the game's features (``fsmarena.deep.environment.features_env``: a flat vector,
   what ``MlpPolicy`` takes, with the legal actions as ``action_masks()``).
2. **Wrap it.** ``sb3_player`` copies the policy network's weights out of torch into a
   ``policy-network`` player: JSON numbers, played in numpy over the legal actions, exactly
   as ``model.predict(obs, deterministic=True, action_masks=mask)`` plays.
3. **Save it** as a player file, which every fsmarena command and study reads without torch
   and without pickle. ``make_player`` below is the entry a study names
   (``method = "python"``, ``params = { entry = "sb3_agent:make_player" }``): it reads the file
   back from the folder the study runs in.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO

from fsmarena.deep.adapter import sb3_player
from fsmarena.deep.environment import features_env
from fsmarena.games import get_game
from fsmarena.games.base import Game
from fsmarena.games.players import Player, load_player, save_player

GAME = "vautour"
PLAYER_FILE = "sb3-agent.json"
DECISIONS_PER_GAME = 15  # two-player Stupide Vautour with its default 15 cards: one bid a card


def train(episodes: int, seed: int) -> Player:
    """A MaskablePPO trained for about ``episodes`` games against ``random``, as a player."""
    torch.set_num_threads(1)  # networks this small train fastest on one thread
    game = get_game(GAME)
    env = features_env(game, opponents=["random"])
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, gamma=1.0, seed=seed, device="cpu")
    model.learn(total_timesteps=episodes * DECISIONS_PER_GAME)
    return sb3_player(model, game, label="sb3-maskable-ppo")


def make_player(game: Game) -> Player:
    """The saved agent, for a study's ``python`` competitor (run from the folder holding it)."""
    return load_player(Path(PLAYER_FILE), game)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=PLAYER_FILE)
    args = parser.parse_args()
    player = train(args.episodes, args.seed)
    save_player(player, get_game(GAME), args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
