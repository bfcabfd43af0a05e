"""``python -m benchmarks``: every benchmark, and the report (see :mod:`benchmarks.run_all`)."""

from benchmarks.run_all import main

raise SystemExit(main())
