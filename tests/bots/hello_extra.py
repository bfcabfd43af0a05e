"""Answers hello with odd but acceptable fields (a long name, a number as version) and extra
keys the arena must not keep. (A name with a control character is refused: tests/test_terminal.py.)"""

from hostile import deep, serve

serve(
    '{"name": " extra' + "n" * 500 + '", "version": 7, "author": "' + "a" * 500 + '",'
    ' "deep": ' + deep(1000) + ', "huge": 123456789012345678901234567890, "name2": "\\u0000"}'
)
