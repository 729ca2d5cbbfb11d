"""What a rater's browser does, request by request, against the rater screens (protocol.md#rater-screen).

Log in; open the campaign's instructions; press Start (POST ``next/``); then loop: GET the
item page, POST a score with the page's CSRF token and assignment id, follow the redirect to
the next item. A submit counts as acknowledged when the page after it says "Saved: <score>."
(the screens' success message), exactly what the rater sees. The flow survives a server
that drops connections or answers 5xx for a while (a killed worker): it reloads the page it
was on, as a person would, and carries on.

Used by ``bench/rater_load.py`` and by the fault tests in ``tests/deploy/``.
"""

import asyncio
import random
import re
import time
from dataclasses import dataclass, field

from bench.httpclient import Browser, HTTPError, log_in
from bench.invariants import Acknowledged

ASSIGNMENT_INPUT = re.compile(rb'name="assignment" value="(\d+)"')
SCORE_CHOICE = re.compile(rb'<input type="radio" name="score"[^>]*value="(\d+)"')
SAVED_MESSAGE = re.compile(rb"Saved: (\d)\.")
RETRY_PAUSE_SECONDS = 0.2
MAX_CONSECUTIVE_FAILURES = 50
SERVER_ERROR = 500
FOUND = 302
OK = 200
# Simulated reading time reported by the page's script; the server keeps the lower of it and its own.
REPORTED_SECONDS = 5
LOGIN_CONCURRENCY = 4


class Budget:
    """A shared bound on the run: a deadline and a request count; ``spent`` says when to stop."""

    def __init__(self, deadline, max_requests):
        self.deadline = deadline
        self.max_requests = max_requests
        self.requests = 0

    def take(self):
        self.requests += 1

    @property
    def spent(self):
        return self.requests >= self.max_requests or asyncio.get_running_loop().time() >= self.deadline


@dataclass
class RaterRun:
    """One simulated rater's outcome."""

    username: str
    acknowledged: dict = field(default_factory=dict)  # assignment id -> Acknowledged
    refused: int = 0
    finished: bool = False  # reached the completion page


class RaterFlow:
    """One simulated rater in one campaign; ``stats`` is a shared :class:`~bench.loadstats.LoadStats`."""

    def __init__(self, browser: Browser, username, password, campaign_id, stats, budget, seed=0):
        self.browser = browser
        self.password = password
        self.base = f"/rate/{campaign_id}/"
        self.stats = stats
        self.budget = budget
        self.random = random.Random(seed)
        self.run = RaterRun(username)
        self._pending = None  # (assignment id, score) posted, not yet confirmed
        self._failures = 0

    async def log_in(self):
        await log_in(self.browser, self.run.username, self.password)

    async def _request(self, kind, method, path, fields=None, referer=None):
        """One request, timed under ``kind``; None after a transport error or a 5xx (recorded)."""
        self.budget.take()
        try:
            if method == "GET":
                response = await self.browser.get(path)
            else:
                response = await self.browser.post(path, fields, referer=referer)
        except HTTPError as exc:
            self.stats.error(kind, type(exc).__name__ if not str(exc) else str(exc).split(": ", 1)[-1][:60])
            return await self._failed()
        self.stats.record(kind, response.seconds)
        if response.status >= SERVER_ERROR or response.status not in (OK, FOUND):
            self.stats.error(kind, f"HTTP {response.status}")
            return await self._failed()
        self._failures = 0
        return response

    async def _failed(self):
        self._failures += 1
        if self._failures >= MAX_CONSECUTIVE_FAILURES:
            raise HTTPError(f"{self.run.username}: {self._failures} failed requests in a row; giving up")
        await asyncio.sleep(RETRY_PAUSE_SECONDS)
        return None

    def _confirm(self, page):
        """Read the page's message about the last submit: saved (acknowledged) or refused."""
        if self._pending is None:
            return
        assignment_id, score = self._pending
        saved = SAVED_MESSAGE.search(page.body)
        if saved and int(saved.group(1)) == score:
            self.run.acknowledged[assignment_id] = Acknowledged(self.run.username, assignment_id, score)
            self.stats.completed += 1
        else:
            self.run.refused += 1
        self._pending = None

    async def rate_until_done(self):
        """Rate items until the completion page, or until the budget is spent."""
        location = self.base
        while not self.budget.spent:
            if location.endswith("/done/"):
                page = await self._request("done page", "GET", location)
                if page is None:
                    continue
                self._confirm(page)
                self.run.finished = True
                return self.run
            if location == self.base:  # the instructions: press Start
                page = await self._request("instructions", "GET", location)
                if page is None or page.status != OK:
                    location = page.location if page is not None else location
                    continue
                self._confirm(page)
                started = await self._request(
                    "start", "POST", self.base + "next/", {"csrfmiddlewaretoken": page.csrf_token()}, referer=self.base
                )
                if started is not None:
                    location = started.location
                continue
            page = await self._request("item page", "GET", location)
            if page is None:
                continue
            if page.status == FOUND:  # no live lease: instructions or completion page
                location = page.location
                continue
            self._confirm(page)
            found = ASSIGNMENT_INPUT.search(page.body)
            token = page.csrf_token()
            if not found or not token:
                self.stats.error("item page", "no rating form")
                await self._failed()
                continue
            assignment_id = int(found.group(1))
            choices = SCORE_CHOICE.findall(page.body)
            if not choices:
                self.stats.error("item page", "no score choices")
                await self._failed()
                continue
            score = int(self.random.choice(choices))
            submitted = await self._request(
                "submit",
                "POST",
                location,
                {
                    "csrfmiddlewaretoken": token,
                    "assignment": assignment_id,
                    "score": score,
                    "seconds": REPORTED_SECONDS,
                },
                referer=location,
            )
            if submitted is not None:
                self._pending = (assignment_id, score)
                location = submitted.location
            # after a failed submit the item page is reloaded: a stored rating shows as a new item
        return self.run


async def run_raters(host, port, usernames, password, campaign_id, stats, budget_seconds, max_requests, browsers=None):
    """Log every rater in (untimed), then let them all rate at once; returns (runs, browsers, seconds).

    ``stats.seconds`` is set to the wall time of the rating phase.
    """
    loop = asyncio.get_running_loop()
    browsers = browsers or [Browser(host, port) for _ in usernames]
    flows = [
        RaterFlow(browser, username, password, campaign_id, stats, None, seed=n)
        for n, (browser, username) in enumerate(zip(browsers, usernames))
    ]
    # Password hashing is deliberately slow (hundreds of ms of CPU): K logins at once would
    # queue past the request timeout on two cores, so they go a few at a time.
    gate = asyncio.Semaphore(LOGIN_CONCURRENCY)

    async def log_in(flow):
        async with gate:
            await flow.log_in()

    await asyncio.gather(*(log_in(flow) for flow in flows))
    budget = Budget(loop.time() + budget_seconds, max_requests)
    for flow in flows:
        flow.budget = budget
    started, cpu = loop.time(), time.process_time()
    runs = await asyncio.gather(*(flow.rate_until_done() for flow in flows))
    stats.seconds, stats.client_cpu_seconds = loop.time() - started, time.process_time() - cpu
    return runs, browsers


def acknowledged(runs):
    return [ack for run in runs for ack in run.acknowledged.values()]
