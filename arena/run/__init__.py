"""Running a league's matches: one driver loop over a backend, on this machine or a Dask cluster.

- :mod:`~arena.run.driver`: the loop (plan, queue, commit, rate, progress, stop, signals) and the
  :class:`~arena.run.driver.Backend` interface (capacity, submit, take, close, cancel); what
  it plays comes from a :class:`~arena.run.driver.Planner` (the league's schedule by default,
  an A/B test's blocks from :mod:`arena.abtest.folder`, passed in by the CLI)
- :mod:`~arena.run.worker`: the worker side both backends share (a bot pool per worker)
- :mod:`~arena.run.local`: the local backend, worker processes on this machine
- :mod:`~arena.run.cluster`, :mod:`~arena.run.cluster_worker`: the Dask backend (both sides)
"""
