"""Deep reinforcement-learning families: Stable-Baselines3 agents trained on fsmarena's games.

The optional ``[deep]`` extra (PyTorch, Stable-Baselines3, sb3-contrib) trains PPO, maskable PPO
and DQN on a game's Gymnasium environment (:mod:`fsmarena.deep.environment`), as a study method
(:mod:`fsmarena.deep.method`, ``method = "deep"``), counted in training games like every
family.  The trained network leaves torch behind: it is exported (:mod:`fsmarena.deep.export`)
to a ``policy-network`` player (:mod:`fsmarena.deep.player`), JSON numbers played in numpy, so
reading and playing it needs neither torch nor pickle.  Any other Stable-Baselines3 model, or
any callable on a Gymnasium observation, becomes a player through :mod:`fsmarena.deep.adapter`.

Only the modules that train or export import torch, and only when they run: importing this
package, reading its player files and checking a study's parameters work without the extra.
"""
