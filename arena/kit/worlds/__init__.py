"""Determinization, one module per game: ``sample_world(observation, options, rng, events)``
builds a full position consistent with what one seat saw, the cards it cannot see dealt at random.

Written against ``arena.games``; a starter kit carries the game's module as ``rules/world.py``
with its imports rewritten to the kit's copy of the rules (see arena/kit/build.py), so each
module here imports only from ``arena.games`` and the standard library.
"""
