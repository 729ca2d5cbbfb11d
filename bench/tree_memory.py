"""The memory of a whole process tree at one instant: the sum of its processes' PSS, sampled by a thread.

A benchmark's peak RSS of its own process and the largest child's peak RSS (``RUSAGE_CHILDREN``) are two
peaks at two different instants, and their sum counts twice every page a forked child shares with its
parent (and every shared library both map). The proportional set size (``Pss`` in
``/proc/PID/smaps_rollup``) charges each page to the processes that map it in equal shares, so the PSS of
the processes of a tree add up to the memory the tree holds: the figure to hold against "peak memory of
the job". A thread polls the tree (the root and every descendant, found through
``/proc/PID/task/TID/children``) every ``interval`` seconds and keeps the largest sum, with each
process's share at that instant. The polling costs CPU of the sampling process (the kernel walks each
process's page tables); :attr:`TreeMemory.cpu_seconds` says how much, so a benchmark can take it out of
its own CPU figure.
"""

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

PROC = Path("/proc")
# Reading smaps_rollup costs the kernel a walk of the process's page tables: 3.6 ms of CPU for a process
# of 820 MiB on a quiet machine, 7-10 ms per sample of the metric study's tree under load. Every 50 ms took
# 43 CPU seconds of a 296 s first report, every 200 ms 38 of a 735 s one (load average about 8): 5 % of a
# core taken from the job it measures. Every 500 ms takes about 2 %; the memory peaks it looks for (an
# embedding block, the statistics) last seconds.
INTERVAL_SECONDS = 0.5
KIB = 1024


def parse_smaps_rollup(text):
    """``{field: kB}`` of an ``smaps_rollup`` text (its header line, the address range, skipped)."""
    fields = {}
    for line in text.splitlines():
        name, colon, rest = line.partition(":")
        parts = rest.split()
        if colon and len(parts) == 2 and parts[1] == "kB" and parts[0].isdigit():
            fields[name.strip()] = int(parts[0])
    return fields


def children(pid, proc=PROC):
    """The process ids ``pid``'s threads started (empty once it has ended)."""
    found = []
    try:
        tasks = list((proc / str(pid) / "task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def tree(root, proc=PROC):
    """``root`` and every descendant, parents before their children."""
    order, todo = [], [root]
    while todo:
        pid = todo.pop(0)
        if pid not in order:
            order.append(pid)
            todo += children(pid, proc)
    return order


def pss_kib(pid, proc=PROC):
    """The process's PSS in KiB, or None when it has ended (or cannot be read)."""
    try:
        return parse_smaps_rollup((proc / str(pid) / "smaps_rollup").read_text()).get("Pss")
    except OSError:
        return None


@dataclass
class Sample:
    """The tree's PSS at one instant: each process's share (KiB), the root's first."""

    root: int
    kib: dict = field(default_factory=dict)  # pid: PSS KiB, in tree order

    @property
    def total_kib(self):
        return sum(self.kib.values())

    @property
    def root_kib(self):
        return self.kib.get(self.root, 0)

    @property
    def children_kib(self):
        return self.total_kib - self.root_kib

    @property
    def largest_child(self):
        """(pid, KiB) of the child with the largest share at this instant, or None without one."""
        others = [(kib, pid) for pid, kib in self.kib.items() if pid != self.root]
        return (max(others)[1], max(others)[0]) if others else None


def sample(root, proc=PROC):
    """The PSS of ``root``'s tree now (processes that end while being read are left out)."""
    taken = Sample(root)
    for pid in tree(root, proc):
        kib = pss_kib(pid, proc)
        if kib is not None:
            taken.kib[pid] = kib
    return taken


class TreeMemory:
    """Polls the PSS of ``root``'s process tree from a thread; :meth:`take` gives the peak since the last take."""

    def __init__(self, root=None, interval=INTERVAL_SECONDS, proc=PROC):
        self.root, self.interval, self.proc = root or os.getpid(), interval, proc
        self.lock = threading.Lock()
        self.peak = None
        self.cpu_seconds = 0.0  # the sampling thread's own CPU (user and system)
        self.samples = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="tree-memory", daemon=True)

    def _record(self, taken):
        with self.lock:
            self.samples += 1
            if self.peak is None or taken.total_kib > self.peak.total_kib:
                self.peak = taken

    def _run(self):
        while True:
            started = time.thread_time()
            self._record(sample(self.root, self.proc))
            with self.lock:
                self.cpu_seconds += time.thread_time() - started
            if self.stopping.wait(self.interval):
                return

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.stopping.set()
        self.thread.join()

    def take(self):
        """The sample with the largest sum since the last take (one taken now too), and the sampling CPU."""
        self._record(sample(self.root, self.proc))
        with self.lock:
            peak, cpu, self.peak, self.cpu_seconds = self.peak, self.cpu_seconds, None, 0.0
        return peak, cpu
