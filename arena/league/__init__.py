"""The league: who plays, which matches, what they gave, and what it means.

- :mod:`~arena.league.config`: ``league.toml``, each key declared once (type, default, range, help)
- :mod:`~arena.league.schedule`: which matches to play next
- :mod:`~arena.league.store`: ``league.db`` (the only module that knows its schema)
- :mod:`~arena.league.rating`: TrueSkill over the results in schedule order
- :mod:`~arena.league.conformance`: ``arena check``'s test of a bot
- :mod:`~arena.league.audit`: replaying every stored match
- :mod:`~arena.league.core`: the :class:`~arena.league.core.League` that ties them together

It runs matches through :mod:`arena.match`; how many at once, and where, is :mod:`arena.run`'s.
"""
