"""CI: say which sandbox the arena would use here; fail if ARENA_SANDBOX is set but not in effect,
or, with --expect, unless auto picks that method; with --no-bwrap, if bwrap is on PATH.

Usage: python .ci/sandbox_probe.py [--expect METHOD] [--no-bwrap]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys

from arena.runtime.sandbox import available_method, describe_isolation


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expect", default=None, help="the method auto must pick")
    parser.add_argument("--no-bwrap", action="store_true", help="bwrap must not be on PATH")
    args = parser.parse_args()
    forced = os.environ.get("ARENA_SANDBOX", "(unset)")
    print(f"uid {os.geteuid()}; ARENA_SANDBOX={forced}; auto picks {available_method()}")
    print(f"isolation: {describe_isolation()}")
    if args.no_bwrap and shutil.which("bwrap") is not None:
        print(f"bwrap is not hidden: {shutil.which('bwrap')}", file=sys.stderr)
        return 1
    isolation = describe_isolation()
    if forced not in ("(unset)", "auto") and not isolation.startswith(forced):
        # ARENA_SANDBOX forces the method of every bot the arena starts (arena/runtime/sandbox.py)
        print(f"ARENA_SANDBOX={forced} is not in effect: {isolation}", file=sys.stderr)
        return 1
    if args.expect is not None and available_method() != args.expect:
        print(f"auto picked {available_method()}, expected {args.expect}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
