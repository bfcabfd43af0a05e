"""Takes 30 s before it reads anything: longer than any start-up limit."""

import time

time.sleep(30)
from _serve import serve  # noqa: E402

serve("slow-start")
