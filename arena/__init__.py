"""arena: a tournament engine and bot-competition harness for Ten, Take 5 and Phase 10.

Importing the package does one thing before any of its modules is found: it has the rules
modules (``arena.games.*`` and ``arena.players``) imported either all compiled (mypyc) or all
from their sources, as :func:`arena.native.load_rules` decides (README, "Compiled rules").
"""

from arena import native as native

native.load_rules()

__version__ = "0.1.0"
