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

import multiprocessing
import pickle
import signal
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Generic, TypeVar

T = TypeVar("T")

CAN_FORK = "fork" in multiprocessing.get_all_start_methods()


class ChildProcessFailed(RuntimeError):
    """The child ended without a result (killed, out of memory) or raised an exception that cannot be pickled."""


def _run_in_child(send: Connection, function: Callable[[], object]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        outcome: tuple[bool, object] = (True, function())
    except BaseException as exc:  # every failure goes back to the caller, which raises it
        text = "".join(traceback.format_exception(exc))
        try:
            pickle.dumps(exc)
            exc.add_note(f"raised in the child process:\n{text}")
            outcome = (False, exc)
        except Exception:  # an exception that does not pickle is sent as its text
            outcome = (False, ChildProcessFailed(text))
    send.send(outcome)
    send.close()


class ForkedCall(Generic[T]):
    """``function()`` computed in a forked child from the moment of construction; :meth:`result` waits for it.

    Use it as a context manager: leaving the block (an exception of the caller's, a cancelled
    run) stops a child that is still computing.
    """

    def __init__(self, function: Callable[[], T]) -> None:
        self._function = function
        self._process: multiprocessing.process.BaseProcess | None = None
        self._receive: Connection | None = None
        self._forked = CAN_FORK
        self._value: tuple[T] | None = None  # the result, once received (``result`` may be asked again)
        if self._forked:
            context = multiprocessing.get_context("fork")
            self._receive, send = context.Pipe(duplex=False)
            self._process = context.Process(target=_run_in_child, args=(send, function), name="comve-forked-call")
            self._process.start()
            send.close()  # the child holds its own end: a child that dies leaves the pipe at end of file

    def result(self) -> T:
        """The function's value; its exception raised here; :class:`ChildProcessFailed` when the child died."""
        if self._value is None:
            self._value = (self._received() if self._forked else self._function(),)
        return self._value[0]

    def _received(self) -> T:
        if self._process is None or self._receive is None:
            raise ChildProcessFailed("the child process was stopped before its result was asked for")
        try:
            succeeded, value = self._receive.recv()
        except EOFError:
            self._process.join()
            raise ChildProcessFailed(
                f"the child process computing {getattr(self._function, '__name__', 'a part')} ended "
                f"without a result (exit code {self._process.exitcode})"
            ) from None
        finally:
            self._receive.close()
        self._process.join()
        if not succeeded:
            assert isinstance(value, BaseException)
            raise value
        return value  # type: ignore[no-any-return]  # the child's function() value, as sent

    def close(self) -> None:
        """Stop the child if it is still computing and wait for it to end."""
        if self._process is not None:
            if self._process.is_alive():
                self._process.terminate()
            self._process.join()
            self._process.close()
            self._process = None
        if self._receive is not None:
            self._receive.close()

    def __enter__(self) -> ForkedCall[T]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
