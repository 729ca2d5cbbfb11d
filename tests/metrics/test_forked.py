"""A computation in a forked child (evalapp.compute.forked): its value, its errors, its end."""

import os
import signal
import time

import pytest

from evalapp.compute import forked
from evalapp.compute.forked import ChildProcessFailed, ForkedCall

pytestmark = pytest.mark.skipif(not forked.CAN_FORK, reason="this platform cannot fork: the call runs in the caller")


def test_the_value_comes_from_another_process_and_may_be_asked_again():
    parent = os.getpid()
    with ForkedCall(lambda: (os.getpid(), [1.5, float("inf")])) as call:
        child, value = call.result()
        assert call.result() == (child, value)
    assert child != parent
    assert value == [1.5, float("inf")]


def test_the_child_sees_the_callers_objects_as_they_were_when_it_started_and_cannot_change_them():
    rows = [1, 2, 3]

    def grow():
        rows.append(4)
        return len(rows)

    with ForkedCall(grow) as call:
        assert call.result() == 4
    assert rows == [1, 2, 3]


def test_an_exception_of_the_child_is_raised_by_result_with_the_childs_traceback():
    def fails():
        raise ZeroDivisionError("no instance drawn")

    with ForkedCall(fails) as call, pytest.raises(ZeroDivisionError, match="no instance drawn") as raised:
        call.result()
    assert any("raised in the child process" in note and "fails" in note for note in raised.value.__notes__)


class Unpicklable(Exception):
    def __init__(self, handle):
        super().__init__("holds a lock")
        self.handle = handle


def test_an_exception_that_cannot_be_pickled_is_sent_as_its_text():
    import threading

    def fails():
        raise Unpicklable(threading.Lock())

    with ForkedCall(fails) as call, pytest.raises(ChildProcessFailed, match="Unpicklable: holds a lock"):
        call.result()


def test_a_child_that_dies_without_a_result_is_reported_with_its_exit_code():
    with ForkedCall(lambda: os._exit(3)) as call, pytest.raises(ChildProcessFailed, match="exit code 3"):
        call.result()


def test_closing_stops_a_child_still_computing_even_under_the_callers_sigterm_handler():
    received = []
    previous = signal.signal(signal.SIGTERM, lambda number, frame: received.append(number))
    try:
        call = ForkedCall(lambda: time.sleep(60))
        time.sleep(0.2)
        started = time.monotonic()
        call.close()
        assert time.monotonic() - started < 5, "the child took SIGTERM's default action"
        assert received == [], "the signal went to the child, not the caller"
        with pytest.raises(ChildProcessFailed, match="stopped before"):
            call.result()
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_without_fork_the_call_is_computed_in_the_caller_when_asked(monkeypatch):
    monkeypatch.setattr(forked, "CAN_FORK", False)
    calls = []
    with ForkedCall(lambda: calls.append(os.getpid()) or "done") as call:
        assert calls == [], "nothing is computed before the result is asked for"
        assert call.result() == "done"
    assert calls == [os.getpid()]
