"""Answers hello with odd but acceptable fields and extra keys the arena must not keep."""

from hostile import deep, serve

serve(
    '{"name": " extra\\u001b[2J' + "n" * 500 + '", "version": 7, "author": "' + "a" * 500 + '",'
    ' "deep": ' + deep(1000) + ', "huge": 123456789012345678901234567890, "name2": "\\u0000"}'
)
