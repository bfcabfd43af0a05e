"""Answers hello with a name that is a lone surrogate, which UTF-8 cannot carry."""

from hostile import serve

serve('{"name": "\\ud800"}')
