"""Faults under load, against the real production stack (gunicorn + production settings).

A gunicorn worker is killed with SIGKILL twice while raters are submitting; a rater walks
away holding a lease. Afterwards no rating is partial or duplicated, every acknowledged
submit is stored exactly once, the abandoned lease has come back to the pool, and the
campaign completes once the raters return. The server runs on a free loopback port on a
file SQLite database, or (marked ``postgres``, second pass of scripts/test.sh) on a fresh
database of the PostgreSQL test server.
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench.httpclient import Browser
from bench.invariants import dump_acknowledged
from bench.loadstats import LoadStats
from bench.raterflow import Budget, RaterFlow, acknowledged
from bench.server import LOOPBACK, REPO, BenchDatabase, Gunicorn, prepare, production_env

SYSTEMS, INSTANCES, RATERS_PER_ITEM = 4, 15, 3
ACTIVE_RATERS = 6
LEASE_SECONDS = 2
KILL_AFTER_RATINGS = (25, 80)
BUDGET_SECONDS = 90
MAX_REQUESTS = 5000
WORKERS, THREADS = 2, 2
SUBPROCESS_TIMEOUT = 300


def django_cli(env, module, *args):
    """Run a Django-aware bench module against the server's database; its JSON output."""
    result = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def served(request, tmp_path):
    """(server, env, campaign) on a fresh database, with a small synthetic campaign."""
    if request.param == "postgres":
        if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
            pytest.skip("runs in the PostgreSQL pass (DATABASE_URL=postgres://...)")
        database = BenchDatabase("postgres", tmp_path, f"comve_fault_{os.getpid()}", os.environ["DATABASE_URL"])
    else:
        database = BenchDatabase("sqlite", tmp_path, "fault")
    env = production_env(database.url, tmp_path)
    prepare(env)
    campaign = django_cli(
        env,
        "bench.synthetic",
        "--name",
        "fault",
        "--systems",
        str(SYSTEMS),
        "--instances",
        str(INSTANCES),
        "--raters-per-item",
        str(RATERS_PER_ITEM),
        "--raters",
        str(ACTIVE_RATERS + 1),
        "--lease-seconds",
        str(LEASE_SECONDS),
        "--json",
    )
    server = Gunicorn(env, tmp_path / "gunicorn.log", workers=WORKERS, threads=THREADS)
    try:
        yield server.start(), env, campaign
    finally:
        server.stop()
        database.drop()


async def kill_workers_during_load(server, stats, killed):
    """SIGKILL every worker each time the acknowledged ratings pass a threshold."""
    for threshold in KILL_AFTER_RATINGS:
        while stats.completed < threshold:
            await asyncio.sleep(0.01)
        for victim in server.worker_pids():
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)


async def scenario(server, campaign):
    stats = LoadStats("fault")
    loop = asyncio.get_running_loop()
    budget = Budget(loop.time() + BUDGET_SECONDS, MAX_REQUESTS)
    *names, walker_name = campaign["raters"]

    def flow(name, seed):
        return RaterFlow(
            Browser(LOOPBACK, server.port), name, campaign["password"], campaign["id"], stats, budget, seed
        )

    # One rater starts, takes a lease and walks away (the browser died with the worker).
    walker = flow(walker_name, seed=len(names))
    await walker.log_in()
    page = await walker.browser.get(walker.base)
    await walker.browser.post(walker.base + "next/", {"csrfmiddlewaretoken": page.csrf_token()}, referer=walker.base)
    await walker.browser.close()

    flows = [flow(name, seed) for seed, name in enumerate(names)]
    await asyncio.gather(*(f.log_in() for f in flows))
    killed = []
    killer = asyncio.create_task(kill_workers_during_load(server, stats, killed))
    runs = await asyncio.gather(*(f.rate_until_done() for f in flows))
    await asyncio.wait_for(killer, BUDGET_SECONDS)
    # The walker's lease runs out; the raters come back later and finish the campaign.
    await asyncio.sleep(LEASE_SECONDS + 1)
    for f in flows:
        f.run.finished = False
    runs = await asyncio.gather(*(f.rate_until_done() for f in flows))
    for f in flows:
        await f.browser.close()
    return runs, stats, killed, sum(f.browser.reconnects for f in flows)


def test_sigkill_of_a_worker_mid_load_loses_and_duplicates_nothing(served, tmp_path):
    server, env, campaign = served
    workers_before = set(server.worker_pids())
    # A thread of its own: the browser tests' Playwright event loop may still run in this one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        runs, stats, killed, reconnects = pool.submit(asyncio.run, scenario(server, campaign)).result()

    assert len(killed) == len(KILL_AFTER_RATINGS) * WORKERS
    assert reconnects + sum(stats.errors.values()) > 0, "the kills cut live connections"
    assert not set(server.worker_pids()) & set(killed), "the master replaced the killed workers"
    assert set(server.worker_pids()) != workers_before
    assert all(run.finished for run in runs)
    acks = tmp_path / "acknowledged.json"
    dump_acknowledged(acknowledged(runs), acks)
    report = django_cli(env, "bench.invariants", "--campaign-id", str(campaign["id"]), "--acknowledged", str(acks))
    assert report["violations"] == {}, report
    state = report["state"]
    assert state["complete"] and state["ratings"] == state["expected"] == SYSTEMS * INSTANCES * RATERS_PER_ITEM
    assert state["leased"] == 0 and state["expired"] >= 1, "the walker's lease expired and went back to the pool"
    # Every rating the raters were told about is stored; any other one is a submit whose
    # answer died with its worker, stored once all the same.
    assert report["checks"]["acknowledged_not_stored"] == 0
    assert len(acknowledged(runs)) + report["checks"]["stored_not_acknowledged"] == state["ratings"]
