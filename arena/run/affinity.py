"""Which pending matches a worker plays next: each worker keeps to the bots it has alive.

A bot process is started once per worker and kept while the worker's cap on live bots
(``executor.live_bots``) allows; a league of many entrants seats each batch in groups
(``schedule.group_size``) so that a worker can play a group's matches with the group's bots
alive. That holds only if the group's matches go to one worker: dealt out in schedule order,
each chunk to whichever worker is free, every worker plays a share of every group and starts
every bot.

So the driver's queue of pending matches is cut into **clusters**: the matches of one batch
linked by a shared bot (a group, or the whole batch when it has no groups). A worker **claims**
a cluster and is given its matches, in schedule order, until none are left; then it claims the
first cluster that no other worker has claimed; when every cluster left is claimed it helps
with the largest. Which matches are played, with which seeds and seats, does not change; only
which worker plays them and when. A backend that cannot send a chunk to a particular worker
(worker ``None``) is served in schedule order, as before clusters.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

from arena.league.store import Planned

Cluster = tuple[int, int, int]
"""(arrival, batch, smallest bot id of the cluster): unique among the clusters of a queue."""


def clusters_of(matches: Sequence[Planned], arrival: int) -> list[tuple[Cluster, Planned]]:
    """Each match with its cluster: within a batch, matches that share a bot, directly or
    through other matches, are in one cluster (union-find over the bots)."""
    parent: dict[tuple[int, int], tuple[int, int]] = {}

    def root(node: tuple[int, int]) -> tuple[int, int]:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for match in matches:
        first = root((match.batch, match.bots[0]))
        for bot in match.bots[1:]:
            other = root((match.batch, bot))
            if other != first:
                low, high = sorted((first, other))
                parent[high] = low
                first = low
    return [(_key(arrival, root((m.batch, m.bots[0]))), m) for m in matches]


def _key(arrival: int, node: tuple[int, int]) -> Cluster:
    return (arrival, node[0], node[1])


class Pending:
    """The matches waiting to be sent, in schedule order, cut into clusters."""

    def __init__(self, matches: Iterable[Planned] = ()) -> None:
        self._order: deque[Planned] = deque()
        """Every waiting match in schedule order (taken ones are skipped when met)."""
        self._clusters: dict[Cluster, deque[Planned]] = {}
        """Each cluster's waiting matches, clusters in the order they first appear."""
        self._left: dict[Cluster, int] = {}
        """How many matches each cluster has waiting; a cluster with none is dropped."""
        self._cluster_of: dict[str, Cluster] = {}
        """The cluster of each waiting match, by match id."""
        self._claims: dict[int, Cluster] = {}
        self._arrivals = 0
        self.extend(matches)

    def __len__(self) -> int:
        return len(self._cluster_of)

    def __bool__(self) -> bool:
        return bool(self._cluster_of)

    def ids(self) -> set[str]:
        return set(self._cluster_of)

    def extend(self, matches: Iterable[Planned]) -> None:
        """Queue ``matches`` after those waiting (a match already waiting is not queued again)."""
        fresh = [m for m in matches if m.match_id not in self._cluster_of]
        self._arrivals += 1
        for key, match in clusters_of(fresh, self._arrivals):
            if match.match_id in self._cluster_of:  # listed twice in ``matches``
                continue
            self._order.append(match)
            self._clusters.setdefault(key, deque()).append(match)
            self._left[key] = self._left.get(key, 0) + 1
            self._cluster_of[match.match_id] = key

    def clear(self) -> None:
        self._order.clear()
        self._clusters.clear()
        self._left.clear()
        self._cluster_of.clear()
        self._claims.clear()

    def take(self, worker: int | None, size: int) -> list[Planned]:
        """Up to ``size`` matches for ``worker`` to play next, all of one cluster (``None``: the
        first ``size`` in schedule order, whatever their clusters)."""
        if worker is None:
            return self._take_from(self._order, size)
        key = self._cluster_for(worker)
        if key is None:
            return []
        return self._take_from(self._clusters[key], size)

    def _cluster_for(self, worker: int) -> Cluster | None:
        """The cluster ``worker`` claimed if it has matches left; else the first one nobody
        claimed (now claimed); else the largest (shared)."""
        key = self._claims.get(worker)
        if key in self._left:  # it has matches left (a cluster with none is dropped)
            return key
        self._claims.pop(worker, None)
        claimed = set(self._claims.values())
        for key in self._left:
            if key not in claimed:
                self._claims[worker] = key
                return key
        return max(self._left, key=self._left.__getitem__) if self._left else None

    def _take_from(self, queue: deque[Planned], size: int) -> list[Planned]:
        taken: list[Planned] = []
        while queue and len(taken) < size:
            match = queue.popleft()
            key = self._cluster_of.pop(match.match_id, None)
            if key is None:  # taken already, through the other queue
                continue
            taken.append(match)
            self._left[key] -= 1
            if not self._left[key]:
                del self._left[key]
                del self._clusters[key]
        # Matches taken through their cluster stay in the schedule order until met: drop those
        # at its head, so that a long run does not keep every match it played.
        while self._order and self._order[0].match_id not in self._cluster_of:
            self._order.popleft()
        return taken
