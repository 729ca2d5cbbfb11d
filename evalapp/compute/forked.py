"""A pure computation run in a forked child process beside the caller's work. No Django imports.

Why a process and not a thread: the metric report's parts are many small NumPy operations, and
two threads of one interpreter spend a good part of their time waiting for each other's lock
(about a CPU second of a 4-second report). A forked child shares the caller's arrays as they are
(copy on write: nothing is pickled on the way in, so closures such as a corpus metric's scoring
function need not be picklable) and sends back only its result.

The child never touches the caller's database connections, files or locks: it computes, sends
its result (or its exception) through a pipe and leaves with ``os._exit``. It ignores SIGINT
(the caller decides) and takes SIGTERM's default action, so :meth:`ForkedCall.close` stops it even
where the caller installed a handler of its own (a job worker's graceful shutdown).
Where the platform cannot fork, the call is computed in the caller's thread when its result is asked for.
"""

from __future__ import annotations

import os
import pickle
import signal
import traceback
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

CAN_FORK = hasattr(os, "fork")


class ChildProcessFailed(RuntimeError):
    """The child ended without a result (killed, out of memory) or raised an exception that cannot be pickled."""


def _outcome(function: Callable[[], object]) -> bytes:
    """The pickled ``(True, value)`` of ``function()``, or ``(False, exception)`` with the child's traceback."""
    try:
        return pickle.dumps((True, function()), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException as exc:  # every failure goes back to the caller, which raises it
        text = "".join(traceback.format_exception(exc))
        try:
            exc.add_note(f"raised in the child process:\n{text}")
            return pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # an exception that does not pickle is sent as its text
            return pickle.dumps((False, ChildProcessFailed(text)), protocol=pickle.HIGHEST_PROTOCOL)


def _child(function: Callable[[], object], write_end: int) -> None:
    """The child's whole life: compute, send, leave at once (no cleanup of what the caller owns)."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        payload = _outcome(function)
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(payload)
        code = 0
    finally:
        os._exit(code)


class ForkedCall(Generic[T]):
    """``function()`` computed in a forked child from the moment of construction; :meth:`result` waits for it.

    Use it as a context manager: leaving the block (an exception of the caller's, a cancelled
    run) stops a child that is still computing.
    """

    def __init__(self, function: Callable[[], T]) -> None:
        self._function = function
        self._forked = CAN_FORK
        self._pid: int | None = None
        self._read_end: int | None = None
        self._value: tuple[T] | None = None  # the result, once received (``result`` may be asked again)
        if self._forked:
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child's side (measured by the tests' results)
                os.close(read_end)
                _child(function, write_end)
            os.close(write_end)  # the child holds its own end: a child that dies leaves the pipe at end of file
            self._pid, self._read_end = pid, read_end

    def result(self) -> T:
        """The function's value; its exception raised here; :class:`ChildProcessFailed` when the child died."""
        if self._value is None:
            self._value = (self._received() if self._forked else self._function(),)
        return self._value[0]

    def _received(self) -> T:
        if self._pid is None or self._read_end is None:
            raise ChildProcessFailed("the child process was stopped before its result was asked for")
        with os.fdopen(self._read_end, "rb") as pipe:
            self._read_end = None
            payload = pipe.read()
        code = self._wait()
        if not payload:
            raise ChildProcessFailed(
                f"the child process computing {getattr(self._function, '__name__', 'a part')} ended "
                f"without a result (exit code {code})"
            )
        succeeded, value = pickle.loads(payload)
        if not succeeded:
            assert isinstance(value, BaseException)
            raise value
        return value  # type: ignore[no-any-return]  # the child's function() value, as sent

    def _wait(self) -> int:
        """Wait for the child to end; its exit code (minus the signal's number when a signal ended it)."""
        assert self._pid is not None
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        return os.waitstatus_to_exitcode(status)

    def close(self) -> None:
        """Stop the child if it is still computing and wait for it to end."""
        if self._read_end is not None:
            os.close(self._read_end)
            self._read_end = None
        if self._pid is not None:
            try:
                os.kill(self._pid, signal.SIGTERM)
            except ProcessLookupError:  # it has ended already; waitpid collects it
                pass
            self._wait()

    def __enter__(self) -> ForkedCall[T]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
