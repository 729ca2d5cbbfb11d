"""The metric study benchmark's memory of the whole job: PSS of a process tree at one instant (bench/tree_memory.py)."""

import os
import signal
import time

from bench.tree_memory import TreeMemory, parse_smaps_rollup, sample, tree

ROLLUP = """55a2318e9000-7ffccb64c000 ---p 00000000 00:00 0                          [rollup]
Rss:                1764 kB
Pss:                 420 kB
Pss_Anon:            112 kB
Shared_Clean:       1608 kB
Private_Dirty:       112 kB
"""


def fake_proc(root, processes):
    """A /proc of ``{pid: (PSS kB, {tid: [children]})}``."""
    for pid, (pss, tasks) in processes.items():
        (root / str(pid)).mkdir()
        if pss is not None:
            (root / str(pid) / "smaps_rollup").write_text(ROLLUP.replace("420", str(pss)))
        for tid, kids in tasks.items():
            (root / str(pid) / "task" / str(tid)).mkdir(parents=True)
            (root / str(pid) / "task" / str(tid) / "children").write_text(" ".join(map(str, kids)) + " ")
    return root


def test_smaps_rollup_is_read_field_by_field_in_kib():
    fields = parse_smaps_rollup(ROLLUP)
    assert fields == {"Rss": 1764, "Pss": 420, "Pss_Anon": 112, "Shared_Clean": 1608, "Private_Dirty": 112}


def test_the_tree_sums_the_pss_of_the_root_and_every_descendant_of_any_thread(tmp_path):
    # 10 started 11 from its main thread and 12 from another thread; 11 started 13; 99 is not in the tree;
    # 12 has ended between the listing and the read (no smaps_rollup): left out, not an error
    proc = fake_proc(
        tmp_path,
        {
            10: (300, {10: [11], 15: [12]}),
            11: (500, {11: [13]}),
            12: (None, {12: []}),
            13: (7, {13: []}),
            99: (1000, {99: []}),
        },
    )
    assert tree(10, proc) == [10, 11, 12, 13]
    taken = sample(10, proc)
    assert taken.kib == {10: 300, 11: 500, 13: 7}
    assert (taken.total_kib, taken.root_kib, taken.children_kib) == (807, 300, 507)
    assert taken.largest_child == (11, 500)
    assert sample(13, proc).largest_child is None


def test_the_sampler_keeps_the_largest_sum_since_the_last_take(tmp_path):
    proc = fake_proc(tmp_path, {10: (300, {10: [11]}), 11: (500, {11: []})})
    memory = TreeMemory(10, interval=0.01, proc=proc).start()
    time.sleep(0.05)
    (proc / "11" / "smaps_rollup").write_text(ROLLUP.replace("420", "2000"))  # the child's peak
    time.sleep(0.05)
    (proc / "10" / "task" / "10" / "children").write_text("")  # the child ended
    time.sleep(0.05)
    peak, cpu = memory.take()
    assert (peak.total_kib, peak.root_kib, peak.children_kib) == (2300, 300, 2000) and cpu >= 0
    peak, _ = memory.take()  # a new step starts from the tree as it is now
    memory.stop()
    assert (peak.total_kib, peak.children_kib) == (300, 0)
    assert memory.samples > 3


def test_a_forked_child_shares_its_pages_so_the_pss_sum_is_below_the_rss_sum():
    ballast = bytearray(os.urandom(32 * 1024 * 1024))  # 32 MiB the child shares until it writes them
    pid = os.fork()
    if pid == 0:  # the child: wait to be measured
        time.sleep(30)
        os._exit(0)
    try:
        for _ in range(100):  # the kernel lists the child once it runs
            taken = sample(os.getpid())
            if pid in taken.kib:
                break
            time.sleep(0.01)
        rss = sum(parse_smaps_rollup(open(f"/proc/{p}/smaps_rollup").read())["Rss"] for p in taken.kib)
        assert pid in taken.kib
        # the 32 MiB are counted once across the two processes by PSS, twice by RSS
        assert rss - taken.total_kib > 24 * 1024
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert len(ballast) == 32 * 1024 * 1024


def test_the_benchmark_counts_a_timed_call_inside_another_for_itself_only():
    """The other metrics run inside BERTScore's ``compute`` (while its child loads): their seconds are theirs."""
    from types import SimpleNamespace

    from bench.metric_study_bench import Timings

    owner = SimpleNamespace(inner=lambda: time.sleep(0.2), outer=lambda: (time.sleep(0.02), owner.inner()))
    timings = Timings()
    timings.wrap(owner, "inner", "inner")
    timings.wrap(owner, "outer", "outer")
    owner.outer()
    owner.inner()
    taken = timings.take()
    assert taken["inner"] >= 0.4 and 0.02 <= taken["outer"] < 0.15 and timings.nested == []  # outer alone: 0.2
