"""Reinforcement learning: tabular learners, planners and a network learner for any game of the contract.

* :mod:`rl.registry` - every learner, declared once: name, settings, the class that is the algorithm;
* :mod:`rl.train` - ``train(game, TrainConfig(...), seed, opponent, panel, jobs, out)``: one run,
  its greedy TablePolicy, Q / counts tables and learning curve (``fsmarena train`` wraps it),
  built from :mod:`rl.config` (settings and checks), :mod:`rl.training_run` (run state, batched
  algorithm), :mod:`rl.sequential_run` (the sequential algorithm), :mod:`rl.evaluation` (curve
  matches, exact values), :mod:`rl.resume` (checkpoints) and :mod:`rl.results` (output files);
* :mod:`rl.learners` - Monte Carlo (exploring starts, every / first visit, running mean or constant
  step) and one-step TD (SARSA, Q-learning, expected SARSA) as batched players that learn;
* :mod:`rl.planning` - value iteration and policy iteration (exact evaluation) on a known model;
* :mod:`rl.network_training` - the network learner (``--algo mlp``): action-value networks on
  any game's features (:mod:`rl.network`, :mod:`rl.network_agent`; extra ``[neural]``);
* :mod:`rl.mdp` - the model (TabularMDP) and exact policy values;
* :mod:`rl.tables`, :mod:`rl.schedules`, :mod:`rl.checkpoint` - shared pieces;
* :mod:`rl.toy` - toy problems with known answers (tests).

Game-specific pieces (benchmarks, comparisons, agents) live in the game's own folder.
"""
