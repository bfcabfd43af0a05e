"""Answers hello with a version nested 1,020 levels deep (orjson reads it; str() recursed)."""

from hostile import deep, serve

serve('{"name": "hello-deep", "version": ' + deep(1020) + "}")
