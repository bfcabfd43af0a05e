"""Kills itself with SIGKILL on its second decision (as the kernel would on a memory limit)."""

import os
import signal

from _serve import serve


def act(message, n):
    if n == 2:
        os.kill(os.getpid(), signal.SIGKILL)


serve("killed", act)
