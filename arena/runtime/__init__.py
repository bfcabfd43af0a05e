"""The bot runtime: everything between the match loop and a bot process.

- :mod:`~arena.runtime.wire`: the JSON-lines codec and its limits
- :mod:`~arena.runtime.manifest`: a bot's folder and ``bot.toml``, the bundled and built-in bots
- :mod:`~arena.runtime.sandbox`, :mod:`~arena.runtime.jail`: how a bot is confined
- :mod:`~arena.runtime.scratch`: the bot's private scratch folders
- :mod:`~arena.runtime.usage`: CPU and memory of a bot's processes
- :mod:`~arena.runtime.botproc`: the process transport, the connection, faults
- :mod:`~arena.runtime.pool`: live bots kept across matches

It imports the games and nothing above them (not the match loop, the league or the CLI).
"""
