"""Exits with status 3 before reading anything."""

import sys

sys.stderr.write("no_start: giving up at once\n")
sys.exit(3)
