"""arena: a tournament engine and bot-competition harness for Ten, Take 5 and Phase 10."""

__version__ = "0.1.0"
