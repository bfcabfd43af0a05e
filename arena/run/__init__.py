"""Running a league's matches: on local worker processes or on a Dask cluster.

- :mod:`~arena.run.local`: worker processes on this machine
- :mod:`~arena.run.cluster`, :mod:`~arena.run.cluster_worker`: a Dask cluster (both sides)
"""
