"""The time a rater spent on an item, as stored with the rating (protocol.md#rater-screen)."""

import math


def measured_seconds(assignment, now, reported):
    """Seconds on the item: lease to submit, measured by the server; the page's own count when lower.

    The page's script counts only the time the page was visible, which is truer when the rater
    left the tab; it can shorten the server's figure, never lengthen it. Anything that is not
    a finite, non-negative number is ignored.
    """
    elapsed = max(0.0, (now - assignment.leased_at).total_seconds())
    try:
        reported = float(reported)
    except (TypeError, ValueError):
        return elapsed
    return reported if math.isfinite(reported) and 0 <= reported < elapsed else elapsed
