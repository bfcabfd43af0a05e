"""Bot processes: starting one confined, talking to it with deadlines, stopping it for good.

Layers, bottom up:

* a :class:`Transport` moves bytes: :class:`ProcessTransport` for a real child (stdout read
  without blocking, stdin written with a deadline, stderr drained by a thread into a bounded
  tail, the child alone in its process group and killed as a group); tests script a fake one.
* a :class:`BotConnection` speaks the protocol over a transport: the handshake, notices, and
  ``act`` requests whose replies it checks (id, action or index, debug note).
  :class:`LocalConnection` gives in-process agents (``builtin:random``, a human) the same face.
* :func:`collect` waits for the replies of several seats at once (a simultaneous decision), each
  against its own deadline, so a slow seat never costs another seat time.

Misbehaviour is never an exception here: it comes back as a :class:`Fault`.
"""

from __future__ import annotations

import contextlib
import enum
import fcntl
import math
import os
import select
import signal
import subprocess
import termios
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, TypeAlias

from mypy_extensions import mypyc_attr

from arena import __version__
from arena.runtime.limits import TimeLimits as TimeLimits
from arena.runtime.limits import cpu_count
from arena.runtime.sandbox import Confined, Limits
from arena.runtime.usage import Budget, Tracker
from arena.runtime.wire import (
    MAX_LINE,
    MAX_TEXT,
    PROTOCOL_VERSION,
    LineBuffer,
    WireError,
    bot_canonical,
    bot_text,
    canonical,
    decode,
    describe,
    excerpt,
)
from arena.runtime.wire import encode as encode_message
from arena.terminal import printable_name


def _load_gather() -> (
    Callable[[Sequence[int], float, int, float], list[tuple[bytes, float, bool]]] | None
):
    """The wait loop of :func:`collect` in C (arena/runtime/gather.c), if it was built for this
    version of the source and not turned off (``ARENA_PURE_PYTHON=1``)."""
    if os.environ.get("ARENA_PURE_PYTHON"):
        return None
    try:
        from arena.runtime import _gather as module
    except ImportError:
        return None
    return module.gather if module.VERSION == 2 else None


_gather = _load_gather()

SPIN = 100e-6
"""Seconds :func:`collect` keeps looking for answers before it sleeps, when spinning is on
(:func:`spin_when_idle`). A bot's answer often comes within tens of microseconds, and waking
from a sleep costs as much again on a virtual machine: measured, 50-200 us took ``arena play``
of four stdio bots from 0.79 to about 1.03 of a bare loop, and a league on one worker of two
cores from 20.6 to 25.7 matches a second (benchmarks/REPORT-loop.md)."""

_spin = 0.0


def spin_when_idle(workers: int) -> float:
    """Turn spinning on (:data:`SPIN`) when ``workers`` busy processes leave one of this
    process's cores to spare, and off otherwise (it would take the cycles another worker needs);
    returns the seconds set. Off until this is called, and always with ``ARENA_NO_SPIN=1`` (a
    shared machine, a laptop on battery). Only the C wait spins."""
    global _spin
    idle = workers < cpu_count() and os.environ.get("ARENA_NO_SPIN", "") in ("", "0")
    _spin = SPIN if idle else 0.0
    return _spin


# -- limits and faults -----------------------------------------------------------------------


@mypyc_attr(native_class=False)  # compiled, it could not be unpickled (frozen)
@dataclass(frozen=True)
class RunLimits:
    """Everything that bounds a bot process: time, output and the sandbox's resources."""

    time: TimeLimits = field(default_factory=TimeLimits)
    max_line: int = MAX_LINE
    """Longest line a bot may write, in bytes (1 MiB)."""
    stderr_tail: int = 64 * 1024
    """How much of the end of a bot's stderr log is kept, in bytes."""
    debug_chars: int = 1000
    """Longest ``debug`` note kept per decision (longer ones are cut)."""
    debug_total: int = 64 * 1024
    """Characters of debug notes kept per seat per match; later notes are dropped."""
    sandbox: Limits = field(default_factory=Limits)
    budget: Budget = field(default_factory=Budget)
    """Caps on CPU and memory of all of a bot's processes together (see :mod:`arena.runtime.usage`)."""
    live_bots: int = 0
    """Bot processes a pool keeps alive at most (0: no cap): past it, the least recently used
    bot not seated in the current match is told ``bye`` and restarted when next needed."""


class FaultKind(enum.Enum):
    """Every way a bot can break the protocol."""

    START_FAILED = "start_failed"
    """The command could not be run, or the process ended before answering ``hello``."""
    STARTUP_TIMEOUT = "startup_timeout"
    """No answer to ``hello`` within the start-up limit."""
    BAD_HELLO = "bad_hello"
    """The answer to ``hello`` is not an object with a string ``name`` (and, if given, a string
    or number ``version`` and ``author``)."""
    TIMEOUT = "timeout"
    """No answer within the decision time plus what was left of the time bank."""
    CRASH = "crash"
    """The process exited, or closed its input or output, during a match."""
    INVALID_JSON = "invalid_json"
    """A line that is not one UTF-8 JSON object."""
    BAD_REPLY = "bad_reply"
    """A reply with neither ``action`` nor ``index``, or both, or an index that is no integer, or
    an ``action`` or ``debug`` value beyond the protocol's limits (nested too deep)."""
    WRONG_ID = "wrong_id"
    """A reply whose ``id`` is not the one asked (and not an earlier, stale one)."""
    ILLEGAL_ACTION = "illegal_action"
    """An action not in ``legal``, or an index outside it."""
    OVERSIZE = "oversize"
    """A line longer than the maximum line length."""
    RESOURCES = "resources"
    """All the bot's processes together went past the league's CPU or memory cap (it is killed);
    see :class:`~arena.runtime.usage.Budget`."""


@mypyc_attr(native_class=False)  # compiled, it could not be unpickled (frozen)
@dataclass(frozen=True)
class Fault:
    """One fault of one bot, with the end of its stderr log."""

    kind: FaultKind
    message: str
    stderr_tail: str = ""

    def __repr__(self) -> str:
        return f"Fault({self.kind.value}: {self.message})"


@dataclass(slots=True)
class Answer:
    """A valid reply to ``act``: the position in ``legal``, the time taken, a debug note (not
    frozen: a frozen dataclass's ``__init__`` costs three times as much, and one is made for
    every decision of every bot)."""

    index: int
    seconds: float
    debug: str | None = None


# -- transports ------------------------------------------------------------------------------


class TransportClosed(Exception):
    """The bot cannot be written to: it closed its input or exited."""


class TransportStuck(Exception):
    """The bot does not read its input: a write did not finish before the deadline."""


class Transport(Protocol):
    """Bytes to and from one bot."""

    buffer: LineBuffer
    """Complete lines received and not yet consumed."""

    def send(self, data: bytes, deadline: float) -> None:
        """Write all of ``data``; raise TransportClosed or TransportStuck."""
        ...

    def fileno(self) -> int | None:
        """A descriptor that becomes readable when the bot writes; None if lines are scripted."""
        ...

    def pump(self) -> None:
        """Move whatever the bot has written into :attr:`buffer`, without blocking."""
        ...

    @property
    def eof(self) -> bool:
        """Whether the bot's output has ended."""
        ...

    def alive(self) -> bool:
        """Whether the bot is still running with its output open."""
        ...

    def exit_description(self) -> str:
        """How the bot ended (``exited with status 1``), or that it is still running."""
        ...

    def stderr_tail(self) -> str:
        """The end of what the bot wrote to stderr."""
        ...

    def close(self, grace: float) -> None:
        """Close the bot's input, give it ``grace`` seconds to exit, then kill it. Idempotent."""
        ...


OUTPUT_CHECK = 0.1
"""While a bot is silent, how often (seconds) the arena looks whether it still holds its output.

A bot that closes its stdout ends the pipe only when no other process holds it, but a sandbox
tool (``unshare``, ``bwrap``) keeps a copy it never writes to: without a look into ``/proc`` such
a bot would be taken for a slow one and time out after its whole time bank."""


def _nonblocking(fd: int) -> None:
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


StderrSink = Callable[[bytes], None]
"""Takes each chunk of a bot's stderr as it comes (on the draining thread): the CLI's live view
and log files. It must not block for long; an exception in it stops only the copying."""


class StderrTail:
    """Drains a stream on a daemon thread, keeping only its last ``limit`` bytes, and hands each
    chunk to ``sink`` if one is given."""

    def __init__(self, fd: int, limit: int, sink: StderrSink | None = None) -> None:
        self._fd = fd
        self._limit = limit
        self._sink = sink
        self._data = bytearray()
        self._lock = threading.Lock()
        self.total = 0
        self.thread = threading.Thread(target=self._drain, name=f"stderr-{fd}", daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            with self._lock:
                self.total += len(chunk)
                self._data += chunk
                if len(self._data) > 2 * self._limit:
                    del self._data[: len(self._data) - self._limit]
            if self._sink is not None:
                try:
                    self._sink(chunk)
                except Exception:  # a broken log must not stop the draining
                    self._sink = None

    def text(self) -> str:
        with self._lock:
            data = bytes(self._data[-self._limit :]) if self._limit else b""
        return data.decode("utf-8", "replace")


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid``, from ``/proc/PID/task/TID/children`` (none if unreadable)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children", encoding="ascii") as file:
                    children = [int(c) for c in file.read().split()]
            except OSError:
                continue
            found += children
            todo += children
    return found


def drop_terminal() -> None:
    """Give up this process's controlling terminal, if it has one (in a bot's child, between
    fork and exec). It is not a session leader, so it can never get one again; if it cannot
    give it up, this raises and the bot does not start."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:  # ENXIO: no controlling terminal (a league worker, CI): nothing to drop
        return
    try:
        fcntl.ioctl(fd, termios.TIOCNOTTY)
    finally:
        os.close(fd)


def detached(then: Callable[[], None] | None) -> Callable[[], None]:
    """The ``preexec_fn`` of a bot: :func:`drop_terminal`, then the sandbox's own, if any."""

    def run() -> None:
        drop_terminal()
        if then is not None:
            then()

    return run


class ProcessTransport:
    """A child process started from a :class:`~arena.runtime.sandbox.Confined` command.

    The child runs in a process group of its own, so :meth:`close` can kill it and everything
    it started with one ``killpg``, and without a controlling terminal (:func:`drop_terminal`),
    so it can neither read the operator's terminal nor push input into it. It stays in the
    arena's session: the kernel's autogroup scheduler gives every session a group of its own,
    and a bot in another session waits for the CPU at each message whenever the machine is busy
    (a bare loop of 4 bots ran at half speed, issue 15). Raises :class:`OSError` if it cannot
    start.
    """

    def __init__(
        self,
        confined: Confined,
        max_line: int,
        stderr_limit: int,
        stderr_sink: StderrSink | None = None,
    ) -> None:
        try:
            self.proc = subprocess.Popen(
                confined.argv,
                cwd=confined.cwd,
                env=confined.env,
                preexec_fn=detached(confined.preexec_fn),
                pass_fds=confined.pass_fds,
                process_group=0,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
            )
        except BaseException:
            confined.release()  # nothing started: its uid is free again
            raise
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._confined = confined
        self.pid = self.proc.pid
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        _nonblocking(self._in)
        _nonblocking(self._out)
        self.buffer = LineBuffer(max_line)
        self._eof = False
        self._closed = False
        self._next_check = 0.0
        self._stderr = StderrTail(self.proc.stderr.fileno(), stderr_limit, stderr_sink)
        self.usage = Tracker(
            self.pid,
            getattr(confined, "uid", None),
            wrapped=getattr(confined, "method", "none") == "bubblewrap",  # always --unshare-pid
        )
        """CPU and memory of every process of the bot (see :mod:`arena.runtime.usage`)."""

    def send(self, data: bytes, deadline: float) -> None:
        if self._closed:
            raise TransportClosed("the process was stopped")
        try:
            written = os.write(self._in, data)
        except BlockingIOError:
            written = 0
        except (BrokenPipeError, ConnectionResetError):
            raise TransportClosed("the bot closed its input") from None
        if written == len(data):  # the common case: all of it at once
            return
        view = memoryview(data)[written:]
        while view:
            try:
                written = os.write(self._in, view)
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [self._in], [], left)[1]:
                    raise TransportStuck("the bot does not read its input") from None
                continue
            except (BrokenPipeError, ConnectionResetError):
                raise TransportClosed("the bot closed its input") from None
            view = view[written:]

    def fileno(self) -> int | None:
        return None if self._eof else self._out

    def take(self, data: bytes, arrived: float, eof: bool) -> None:
        """What :func:`collect`'s C wait loop read from the output, as :meth:`pump` takes it."""
        if data:
            self.buffer.feed(data, arrived)
        if eof:
            self._eof = True

    def pump(self) -> None:
        """Read what is there; when nothing is, see now and then whether the output is gone."""
        if self._eof:
            return
        now = time.monotonic()
        got = False
        while True:
            try:
                chunk = os.read(self._out, 1 << 16)
            except BlockingIOError:
                if not got and now >= self._next_check:
                    self._next_check = now + OUTPUT_CHECK
                    self._eof = self._output_dropped()
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._eof = True
                return
            got = True
            self.buffer.feed(chunk, now)
            if len(chunk) < 1 << 16:
                return

    def _output_dropped(self) -> bool:
        """Whether the bot closed its stdout while only its sandbox tool still holds the pipe.

        True when the processes started under the tool include one that is not the tool itself
        and none of those holds the pipe's write end (the tool's own processes, which share its
        executable, never write). Anything unreadable counts as holding it: no false alarm.
        """
        if self._confined.method not in ("bubblewrap", "unshare"):
            return False  # the bot is our child itself: its closed output is a plain end of file
        try:
            tool = os.readlink(f"/proc/{self.pid}/exe")
            pipe = f"pipe:[{os.fstat(self._out).st_ino}]"
        except OSError:
            return False
        bot_seen = False
        for pid in _descendants(self.pid):
            try:
                if os.readlink(f"/proc/{pid}/exe") == tool:
                    continue
                bot_seen = True
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == pipe:
                        return False
            except FileNotFoundError:
                continue  # it ended meanwhile (or a zombie has no executable)
            except OSError:
                return False
        return bot_seen

    @property
    def eof(self) -> bool:
        return self._eof

    def alive(self) -> bool:
        return not self._eof and not self._closed and self.proc.poll() is None

    def exit_description(self) -> str:
        code = self.proc.poll()
        if code is None:
            # Output closed and exit may be a moment away: wait briefly for the status.
            try:
                code = self.proc.wait(0.05)
            except subprocess.TimeoutExpired:
                closed = "output" if self._eof else "input"
                return f"the bot closed its {closed} and is still running"
        # Under a sandbox tool the bot is the tool's child, and a signal shows as 128 + n.
        signal_of = getattr(self._confined, "signal_of", None)
        number = signal_of(code) if signal_of is not None else (-code if code < 0 else None)
        if number is not None:
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = str(number)
            return f"the process was killed by signal {name}"
        return f"the process exited with status {code}"

    def stderr_tail(self) -> str:
        if self.proc.poll() is not None:
            # It has exited: give the drain a moment to read what it wrote last (its traceback)
            # rather than race it; bounded, in case a child of the bot holds stderr open.
            self._stderr.thread.join(0.5)
        return self._stderr.text()

    def close(self, grace: float) -> None:
        if self._closed:
            return
        self._closed = True
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(grace)
        # Kill the whole group even when the leader has exited: it may have left children.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        # ... and, with a uid of its own, the processes that left the group (setsid).
        self.usage.stop(kill=True)
        self.proc.wait()
        self._confined.release()  # reaped: free its uid, clear what it left
        self._stderr.thread.join(1.0)
        self.proc.stdout.close()
        if not self._stderr.thread.is_alive():
            self.proc.stderr.close()


# -- the protocol over a transport -----------------------------------------------------------


class Connection(Protocol):
    """What the match loop needs from a seat's bot, whether a process or in-process."""

    name: str
    """The name the bot gave in its answer to ``hello``."""
    version: str
    deadline: float
    """When the pending request times out (``time.monotonic()`` clock)."""

    def notify(self, message: Mapping[str, Any]) -> Fault | None:
        """Send a message that has no answer (``start``, ``end``)."""
        ...

    def ask(self, message: dict[str, Any], legal: Sequence[Any], deadline: float) -> None:
        """Send an ``act`` request (its ``id`` is filled in here)."""
        ...

    def poll(self) -> Answer | Fault | None:
        """The reply to the pending request if it has arrived, a fault, or None (not yet)."""
        ...

    def fileno(self) -> int | None: ...

    def pump(self) -> None: ...

    def expire(self) -> Fault:
        """The fault for a request whose deadline has passed."""
        ...

    def stderr_tail(self) -> str: ...

    def alive(self) -> bool:
        """Whether the bot can still be asked (a process may have died between matches)."""
        ...

    def say_bye(self) -> None:
        """Send ``bye`` without waiting for the bot to exit."""
        ...

    def close(self) -> None:
        """Say ``bye`` and stop the bot."""
        ...


class BotConnection:
    """The protocol spoken to one bot through a :class:`Transport`.

    Request ids are unique over the connection's life, so a late reply to an earlier request is
    recognised as stale and dropped, never applied to a later one.
    """

    def __init__(self, transport: Transport, limits: RunLimits) -> None:
        self.transport = transport
        self.limits = limits
        self.name = "?"
        self.version = ""
        self.hello: dict[str, str] = {}
        """The checked ``name``, ``version`` and ``author`` of the bot's hello (nothing else)."""
        self.deadline = 0.0
        self.discarded = 0
        """Lines thrown away: output nobody asked for, and stale replies."""
        self.ignored = 0
        """Lines dropped while the current request was pending (named in a timeout)."""
        self._last_id = 0
        self._legal: Sequence[Any] = ()
        self._sent_at = 0.0
        self._time: object = None
        """The `time` object of the pending request (named in a timeout)."""
        self._broken: Fault | None = None
        self._bye_said = False

    # faults carry the stderr tail; build them here
    def fault(self, kind: FaultKind, message: str) -> Fault:
        return Fault(kind, message, self.transport.stderr_tail())

    def handshake(self, deadline: float) -> Fault | None:
        """Say ``hello`` and check the answer; on success :attr:`name` is the bot's name."""
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "arena": __version__}
        try:
            self.transport.send(encode_message(hello), deadline)
        except TransportClosed:
            return self.fault(
                FaultKind.START_FAILED,
                f"the bot closed its input before hello; {self.transport.exit_description()}",
            )
        except TransportStuck:
            return self.fault(FaultKind.STARTUP_TIMEOUT, "the bot does not read its input")
        buffer = self.transport.buffer
        while not buffer.lines:
            if buffer.oversize:
                return self.fault(FaultKind.OVERSIZE, "the answer to hello is too long")
            fd = self.transport.fileno()
            if fd is None:
                if self.transport.eof:
                    return self.fault(
                        FaultKind.START_FAILED,
                        f"no answer to hello: {self.transport.exit_description()}",
                    )
                return self.fault(FaultKind.STARTUP_TIMEOUT, "no answer to hello")
            left = deadline - time.monotonic()
            if left <= 0:
                return self.fault(
                    FaultKind.STARTUP_TIMEOUT,
                    f"no answer to hello within {self.limits.time.startup:g} s",
                )
            select.select([fd], [], [], min(left, OUTPUT_CHECK))
            self.transport.pump()  # also when nothing came: it notices a closed output
        line, _ = buffer.lines.popleft()
        try:
            answer = decode(line)
        except WireError as exc:
            return self.fault(FaultKind.BAD_HELLO, f"the answer to hello {excerpt(line)} is {exc}")
        raw_name = answer.get("name")
        if isinstance(raw_name, str) and not printable_name(raw_name):
            return self.fault(
                FaultKind.BAD_HELLO,
                "the 'name' in the answer to hello must hold no control, format or bidi "
                f"characters (no newline, no escape sequence): {excerpt(line)}",
            )
        checked = check_hello(answer)
        if isinstance(checked, str):
            return self.fault(FaultKind.BAD_HELLO, f"{checked}: {excerpt(line)}")
        self.hello = checked
        self.name = checked["name"]
        self.version = checked.get("version", "")
        return None

    def notify(self, message: Mapping[str, Any]) -> Fault | None:
        try:
            self.transport.send(
                encode_message(message), time.monotonic() + self.limits.time.decision
            )
        except TransportClosed:
            return self.fault(FaultKind.CRASH, self.transport.exit_description())
        except TransportStuck:
            return self.fault(FaultKind.TIMEOUT, "the bot does not read its input")
        return None

    def ask(self, message: dict[str, Any], legal: Sequence[Any], deadline: float) -> None:
        # Whatever arrived since the last reply was not asked for: JSON objects are dropped
        # (like lines without an id, see poll); anything else is a fault, whenever it arrives.
        # (Lines still in the pipe are judged the same way by poll, so no read is needed here.)
        buffer = self.transport.buffer
        self._broken = None
        while buffer.lines:
            line, _ = buffer.lines.popleft()
            try:
                decode(line)
            except WireError as exc:
                self._broken = self.fault(FaultKind.INVALID_JSON, f"{excerpt(line)} is {exc}")
                return
            self.discarded += 1
        self._last_id += 1
        message["id"] = self._last_id
        self._legal = legal
        self._time = message.get("time")
        self.deadline = deadline
        self.ignored = 0
        self._sent_at = time.monotonic()
        try:
            self.transport.send(encode_message(message), deadline)
        except TransportClosed:
            self._broken = self.fault(FaultKind.CRASH, self.transport.exit_description())
        except TransportStuck:
            self._broken = self.fault(FaultKind.TIMEOUT, "the bot does not read its input")

    def poll(self) -> Answer | Fault | None:
        if self._broken is not None:
            return self._broken
        lines = self.transport.buffer.lines
        while lines:
            line, arrived = lines.popleft()
            try:
                reply = decode(line)
            except WireError as exc:
                return self.fault(FaultKind.INVALID_JSON, f"{excerpt(line)} is {exc}")
            rid = reply.get("id")
            if rid == self._last_id and type(rid) is int:
                index = reply.get("index")
                if type(index) is int and len(reply) == 2 and 0 <= index < len(self._legal):
                    return Answer(index, arrived - self._sent_at)  # {"id": N, "index": K}
                return self._read_reply(reply, line, arrived - self._sent_at)
            if (type(rid) is int and 0 < rid < self._last_id) or "id" not in reply:
                # A late reply to an earlier request, or chatter: never applied, never a fault.
                self.discarded += 1
                self.ignored += 1
                continue
            return self.fault(
                FaultKind.WRONG_ID,
                f"reply id {describe(rid)} but the request id is {self._last_id}",
            )
        if self.transport.buffer.oversize:
            return self.fault(
                FaultKind.OVERSIZE, f"a line longer than {self.limits.max_line} bytes"
            )
        if self.transport.eof:
            return self.fault(FaultKind.CRASH, self.transport.exit_description())
        return None

    def _read_reply(self, reply: dict[str, Any], line: bytes, seconds: float) -> Answer | Fault:
        checked = check_reply(reply, self._legal, self.limits.debug_chars, line, seconds)
        if isinstance(checked, Answer):
            return checked
        return self.fault(checked.kind, checked.message)

    def fileno(self) -> int | None:
        return self.transport.fileno()

    def pump(self) -> None:
        self.transport.pump()

    def expire(self) -> Fault:
        self.transport.pump()
        answer = self.poll()
        if answer is not None:  # it arrived just in time after all
            return answer if isinstance(answer, Fault) else self._late(answer)
        allowed = self.time_allowed()
        if self.transport.buffer.pending_bytes:
            return self.fault(
                FaultKind.TIMEOUT,
                f"no complete answer in {allowed} (a line was started but not ended with a "
                "newline)",
            )
        if self.ignored:
            return self.fault(
                FaultKind.TIMEOUT,
                f"no answer in {allowed} ({self.ignored} line(s) without this request's id "
                "ignored)",
            )
        return self.fault(FaultKind.TIMEOUT, f"no answer in {allowed}")

    def time_allowed(self) -> str:
        """What the bot had for the request that timed out: the decision time and the bank
        left as the message told it, and the wait in all (``"0.050 s (decision 50 ms + bank
        left 0 ms: the bank had run out)"``)."""
        waited = f"{max(0.0, self.deadline - self._sent_at):.3f} s"
        told = self._time
        if not isinstance(told, dict):
            return waited
        decision, bank = told.get("decision_ms"), told.get("bank_ms")
        if not isinstance(decision, int) or not isinstance(bank, int):
            return waited
        spent = ": the bank had run out" if bank == 0 else ""
        return f"{waited} (decision {decision} ms + bank left {bank} ms{spent})"

    def _late(self, answer: Answer) -> Fault:
        return self.fault(FaultKind.TIMEOUT, f"the answer came after {answer.seconds:.3f} s")

    def stderr_tail(self) -> str:
        return self.transport.stderr_tail()

    def alive(self) -> bool:
        return self.transport.alive()

    def say_bye(self) -> None:
        """Send ``bye`` (once), without waiting: lets a pool tell every bot before it waits."""
        if not self._bye_said and not self.transport.eof:
            self._bye_said = True
            with contextlib.suppress(TransportClosed, TransportStuck):
                self.transport.send(encode_message({"type": "bye"}), time.monotonic() + 0.05)

    def close(self) -> None:
        self.say_bye()
        self.transport.close(self.limits.time.grace)


class Agent(Protocol):
    """A player that lives in the arena's process and reads the same messages a bot does."""

    name: str
    version: str

    def receive(self, message: Mapping[str, Any]) -> None:
        """A message without an answer (``start``, ``end``)."""
        ...

    def act(self, message: Mapping[str, Any]) -> Mapping[str, Any]:
        """The reply to an ``act`` message: ``{"id": ..., "index": ...}`` or with ``action``."""
        ...


class LegalOnly(Protocol):
    """An in-process agent that decides from the legal list alone (``builtin:random``,
    ``builtin:first``). The match loop calls :meth:`pick` instead of :meth:`Agent.act`, so it
    builds no observation, events or ``act`` message for it; it is sent ``start``, and ``end``
    without events. ``pick`` must choose exactly as ``act`` would."""

    def pick(self, legal: Sequence[Any]) -> int:
        """The index in ``legal`` of the action to play."""
        ...


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled: a caller may adapt it
class LocalConnection:
    """An :class:`Agent` behind the :class:`Connection` interface (no process, no deadline)."""

    def __init__(self, agent: Agent, limits: RunLimits) -> None:
        self.agent = agent
        self.name = agent.name
        self.version = agent.version
        self.deadline = 0.0
        self.limits = limits
        self._reply: Answer | Fault | None = None
        self._pending: tuple[dict[str, Any], Sequence[Any]] | None = None
        self._last_id = 0

    def notify(self, message: Mapping[str, Any]) -> Fault | None:
        self.agent.receive(message)
        return None

    def ask(self, message: dict[str, Any], legal: Sequence[Any], deadline: float) -> None:
        self._last_id += 1
        message["id"] = self._last_id
        self.deadline = deadline
        self._pending = (message, legal)
        self._reply = None

    def poll(self) -> Answer | Fault | None:
        """The agent decides here, when first polled (see :func:`collect`)."""
        if self._pending is not None:
            message, legal = self._pending
            self._pending = None
            started = time.monotonic()
            reply = self.agent.act(message)
            took = time.monotonic() - started
            checked = check_reply(reply, legal, self.limits.debug_chars, None, took)
            self._reply = (
                checked if isinstance(checked, Answer) else Fault(checked.kind, checked.message)
            )
        return self._reply

    def fileno(self) -> int | None:
        return None

    def pump(self) -> None:
        pass

    def expire(self) -> Fault:
        return Fault(FaultKind.TIMEOUT, "no answer")

    def stderr_tail(self) -> str:
        return ""

    def alive(self) -> bool:
        return True

    def say_bye(self) -> None:
        pass

    def close(self) -> None:
        pass


def check_hello(answer: Mapping[str, Any]) -> dict[str, str] | str:
    """The fields kept from an answer to ``hello``, or what is wrong with it.

    ``name`` must be a string, not empty once trimmed; ``version`` and ``author`` may be
    strings or numbers (or absent, or null). Each is cut to :data:`~arena.runtime.wire.MAX_TEXT`
    characters, with control characters replaced, since names are shown on terminals and pages.
    Every other key is dropped unread: nothing a bot adds is stored or written back.
    """
    name = answer.get("name")
    if not isinstance(name, str) or not bot_text(name.strip(), MAX_TEXT, printable=True).strip():
        return "the answer to hello must carry a non-empty string 'name'"
    kept = {"name": bot_text(name.strip(), MAX_TEXT, printable=True).strip()}
    for key in ("version", "author"):
        value = answer.get(key)
        if value is None:
            continue
        if isinstance(value, str):
            kept[key] = bot_text(value.strip(), MAX_TEXT, printable=True)
        elif type(value) in (int, float):
            try:
                kept[key] = bot_canonical(value).decode()[:MAX_TEXT]
            except WireError as exc:
                return f"'{key}' is {exc}"
        else:
            return f"'{key}' must be a string or a number, not {type(value).__name__}"
    return kept


class Refusal(NamedTuple):
    """Why a reply is no answer: the kind of fault and what to say (the connection makes it a
    :class:`Fault`, with the bot's stderr)."""

    kind: FaultKind
    message: str


CheckedReply: TypeAlias = Answer | Refusal
"""What :func:`check_reply` makes of a reply: the answer it names, or why it is refused."""


def check_reply(
    reply: Mapping[str, Any],
    legal: Sequence[Any],
    debug_chars: int,
    line: bytes | None,
    seconds: float,
) -> CheckedReply:
    """The answer a reply (whose id matched) names, or the :class:`Refusal` saying why not.

    ``line`` is the reply as received, for messages (None: the reply re-encoded). Only what the
    arena keeps is read: ``index``, ``action`` (re-encoded to compare, so bounded first) and
    ``debug``; other keys are ignored.
    """

    def shown() -> str:
        return describe(reply) if line is None else excerpt(line)

    index = reply.get("index")
    if type(index) is int and 0 <= index < len(legal) and "action" not in reply:
        debug = reply.get("debug")
        if debug is None:  # the common reply, {"id": N, "index": K}, kept lean
            return Answer(index, seconds)
    if "index" in reply and "action" in reply:
        return Refusal(FaultKind.BAD_REPLY, f"give either 'index' or 'action', not both: {shown()}")
    if "index" in reply:
        index = reply["index"]
        if type(index) is not int:
            return Refusal(FaultKind.BAD_REPLY, f"index must be an integer: {shown()}")
        if not 0 <= index < len(legal):
            return Refusal(
                FaultKind.ILLEGAL_ACTION,
                f"index {index} is outside legal, which has {len(legal)} actions",
            )
    elif "action" in reply:
        try:
            wanted = bot_canonical(reply["action"])
        except WireError as exc:
            return Refusal(FaultKind.BAD_REPLY, f"the action is {exc}: {shown()}")
        found = next((i for i, action in enumerate(legal) if canonical(action) == wanted), None)
        if found is None:
            return Refusal(
                FaultKind.ILLEGAL_ACTION,
                f"action {excerpt(wanted)} is not in legal {excerpt(canonical(list(legal)))}",
            )
        index = found
    else:
        return Refusal(
            FaultKind.BAD_REPLY, f"the reply has neither 'action' nor 'index': {shown()}"
        )
    debug = reply.get("debug")
    if debug is None or isinstance(debug, str):
        note = debug
    else:  # another JSON value is kept as its JSON text, if that can be written
        try:
            note = bot_canonical(debug).decode()
        except WireError as exc:
            return Refusal(FaultKind.BAD_REPLY, f"the debug note is {exc}: {shown()}")
    return Answer(index, seconds, None if note is None else bot_text(note, debug_chars))


def collect(connections: Sequence[Connection]) -> list[Answer | Fault]:
    """Wait for every connection's pending reply, each against its own deadline.

    Bot processes are waited for together (``select``), so each answer is stamped when it
    arrives and a slow seat never costs another seat time. In-process agents answer after them.
    """
    if _gather is not None:
        bots = [conn for conn in connections if type(conn) is BotConnection]
        if len(bots) == len(connections) and all(conn._broken is None for conn in bots):
            gathered = _gathered(bots)
            if gathered is not None:
                return gathered
    return _waited(connections, [None] * len(connections))


def _gathered(connections: list[BotConnection]) -> list[Answer | Fault] | None:
    """:func:`collect` with the wait in C (``_gather``): until each seat has sent a line (or
    ended its output), or the first deadline or :data:`OUTPUT_CHECK` has passed; then the
    seats still without an answer wait in :func:`_waited`. None: not bot processes all."""
    transports = [conn.transport for conn in connections]
    pipes = [t for t in transports if type(t) is ProcessTransport and t.fileno() is not None]
    if _gather is None or len(pipes) != len(connections):
        return None
    timeout = min(min(conn.deadline for conn in connections) - time.monotonic(), OUTPUT_CHECK)
    limit = max(pipe.buffer.max_line for pipe in pipes) + 2
    read = _gather([pipe._out for pipe in pipes], max(timeout, 0.0), limit, _spin)
    results: list[Answer | Fault | None] = []
    for conn, pipe, (data, arrived, eof) in zip(connections, pipes, read, strict=True):
        pipe.take(data, arrived, eof)
        got = conn.poll()
        if got is None:
            pipe.pump()  # nothing whole yet: it looks whether the output is gone, when due
        results.append(got)
    if None in results:
        return _waited(connections, results)
    return results  # type: ignore[return-value]  # none is None


def _waited(
    connections: Sequence[Connection], results: list[Answer | Fault | None]
) -> list[Answer | Fault]:
    """:func:`collect`'s wait, in Python, for the seats whose ``results`` are still None."""
    if len(connections) == 1 and results[0] is None:  # the common case, kept lean
        conn = connections[0]
        while True:
            got = conn.poll()
            if got is not None:
                return [got]
            fd = conn.fileno()
            left = conn.deadline - time.monotonic()
            if fd is None or left <= 0:
                return [conn.expire()]
            select.select([fd], [], [], min(left, OUTPUT_CHECK))
            conn.pump()  # also when nothing came: it notices a closed output
    waiting: dict[int, int] = {}  # file descriptor -> position, of the seats still waited for
    soonest = math.inf
    for i, conn in enumerate(connections):
        fd = conn.fileno()
        if fd is not None and results[i] is None:
            results[i] = conn.poll()  # what arrived before the request was read, if anything
            if results[i] is None:
                waiting[fd] = i
                soonest = min(soonest, conn.deadline)
    while waiting:
        now = time.monotonic()
        ready: list[int] = []
        if soonest > now:
            ready = select.select(list(waiting), [], [], min(soonest - now, OUTPUT_CHECK))[0]
        # Only a seat whose output is readable has something new; when nothing came, each
        # looks whether its output is gone, and whether its deadline has passed.
        for fd in ready or list(waiting):
            i = waiting[fd]
            conn = connections[i]
            conn.pump()
            got = conn.poll()
            if got is None and (conn.fileno() is None or conn.deadline <= time.monotonic()):
                got = conn.expire()
            if got is not None:
                results[i] = got
                del waiting[fd]
        if not waiting:
            break
        if ready and time.monotonic() >= soonest:  # busy seats: a deadline passed
            now = time.monotonic()
            for fd, i in list(waiting.items()):
                if connections[i].deadline <= now:
                    results[i] = connections[i].expire()
                    del waiting[fd]
        soonest = min((connections[i].deadline for i in waiting.values()), default=0.0)
    # In-process agents last: one may be a person at the terminal, who must not eat bot time.
    return [
        result if result is not None else (conn.poll() or conn.expire())
        for result, conn in zip(results, connections, strict=True)
    ]
