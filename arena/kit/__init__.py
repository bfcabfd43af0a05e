"""Starter kits: ``write_kit(game, lang, folder)`` writes a bot folder to start from (protocol
plumbing, a manifest, a random policy to replace and, in Python, the game's rules as a forward
model with a determinization helper). See arena/kit/build.py."""

from __future__ import annotations

from arena.kit.build import LANGS, KitError, write_kit

__all__ = ["LANGS", "KitError", "write_kit"]
