"""Answers hello with an author that is an object, not a string: a bad hello."""

from hostile import serve

serve('{"name": "hello-author", "author": {"first": "Ada"}}')
