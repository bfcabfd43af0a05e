"""arena: a tournament engine and bot-competition harness for Ten, Take 5 and Phase 10."""

# First: decides whether the rules modules are imported compiled or from their sources.
from arena import native as native

__version__ = "0.1.0"
