"""Running a league's matches: one driver loop over a backend that plays chunks of matches.

- :mod:`~arena.run.driver`: the loop (plan, queue, commit, rate, progress, stop) and the
  :class:`~arena.run.driver.Backend` interface
- :mod:`~arena.run.worker`: the worker side shared by every backend (a chunk of matches played
  with the worker's own bot pool)
- :mod:`~arena.run.local`: the backend of worker processes on this machine
- :mod:`~arena.run.cluster`, :mod:`~arena.run.cluster_worker`: the backend of a Dask cluster
  (both sides)
"""
