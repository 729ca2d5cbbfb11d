"""Rate limits kept in the shared cache, so that every web process counts the same requests.

A fixed window per limit: at most N requests per period ("20/minute"), counted under a key (a
client address, a campaign). Used where a request creates something anyone may create: crowd
entry makes an account and a session, and 40 invented worker ids from one address in 0.9 s
made 40 of each (issue 18). The count is approximate under concurrency (the database cache's
increment is a read and a write), which a throttle can afford.
"""

import time

from django.core.cache import cache

PERIODS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
KEY_PREFIX = "comve-throttle"


def parse_rate(rate):
    """``"20/minute"`` -> ``(20, 60)``; ValueError naming the rate otherwise."""
    try:
        count, period = rate.split("/")
        return int(count), PERIODS[period.strip().lower()]
    except (AttributeError, ValueError, KeyError):
        raise ValueError(f"{rate!r} is not a rate; write it as N/second, N/minute, N/hour or N/day") from None


def allow(scope, key, rate, now=None):
    """Count one request of ``key`` in ``scope`` against ``rate``: ``(allowed, seconds until the window ends)``."""
    count, period = parse_rate(rate)
    now = time.time() if now is None else now
    window = int(now // period)
    cache_key = f"{KEY_PREFIX}:{scope}:{key}:{window}"
    if cache.add(cache_key, 1, timeout=period * 2):
        seen = 1
    else:
        try:
            seen = cache.incr(cache_key)
        except ValueError:  # expired between the two calls
            cache.add(cache_key, 1, timeout=period * 2)
            seen = 1
    return seen <= count, max(1, int((window + 1) * period - now))
