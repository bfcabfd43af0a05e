"""The arena server: authors submit bots over the web while the league runs on its own.

- :mod:`arena.server.archive`: uploads (a ``.zip`` or ``.tar.gz`` of a bot folder) unpacked
  safely, and a bot folder packed for ``arena submit --server``
- :mod:`arena.server.accounts`: users, passwords, API tokens, browser sessions, bot ownership
  and webhooks, in the league folder's own ``server.db``
- :mod:`arena.server.client`: the author's side of the API (stdlib only)

The server sits above the league, the run loop and the site, and below the CLI.
"""
