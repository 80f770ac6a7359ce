"""Reinforcement learning: tabular learners, planners and a network learner for any game of the contract.

* :mod:`fsmarena.rl.registry` - every learner, declared once: name, settings, the class that is the algorithm;
* :mod:`fsmarena.rl.train` - ``train(game, TrainConfig(...), seed, opponent, panel, jobs, out)``: one run,
  its greedy TablePolicy, Q / counts tables and learning curve (``fsmarena train`` wraps it),
  built from :mod:`fsmarena.rl.config` (settings and checks), :mod:`fsmarena.rl.training_run` (run state, batched
  algorithm), :mod:`fsmarena.rl.sequential_run` (the sequential algorithm), :mod:`fsmarena.rl.evaluation` (curve
  matches, exact values), :mod:`fsmarena.rl.resume` (checkpoints) and :mod:`fsmarena.rl.results` (output files);
* :mod:`fsmarena.rl.learners` - Monte Carlo (exploring starts, every / first visit, running mean or constant
  step) and one-step TD (SARSA, Q-learning, expected SARSA) as batched players that learn;
* :mod:`fsmarena.rl.planning` - value iteration and policy iteration (exact evaluation) on a known model
  (:class:`fsmarena.games.mdp.TabularMDP`, which the games that know their model build);
* :mod:`fsmarena.rl.network_training` - the network learner (``--algo mlp``): action-value networks on
  any game's features (:mod:`fsmarena.rl.network`, :mod:`fsmarena.rl.network_agent`; extra ``[neural]``);
* :mod:`fsmarena.rl.tables`, :mod:`fsmarena.rl.schedules`, :mod:`fsmarena.rl.checkpoint` - shared pieces;
* :mod:`fsmarena.rl.toy` - toy problems with known answers (tests).

Game-specific pieces (benchmarks, comparisons, agents) live in the game's own folder.
"""
