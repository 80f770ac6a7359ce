"""Study methods: how each family turns a budget and a seed into a trained player.

The contract and the registry are :mod:`fsmarena.methods.base`; this package sits between the
evolution and learning packages it adapts and the studies and tuning that run its methods.
"""
