"""The rating invariants (protocol.md#invariants), checked in the database after a load or fault run.

Each check is one aggregate query and yields a count of violations (0 when the invariant
holds), so a run over thousands of ratings is checked in milliseconds. The run's own record
of what the server acknowledged is compared with what the database holds.

Needs a configured Django; the command line (used by the fault tests) sets it up and prints JSON:

    python -m bench.invariants --campaign-id 3 [--acknowledged acks.json]
"""

import argparse
import json
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Acknowledged:
    """A submit the server answered with success: who, which assignment, which score."""

    username: str
    assignment_id: int
    score: int


def _repeated(queryset):
    from django.db.models import Count

    return queryset.values("item_id", "rater_id").annotate(n=Count("id")).filter(n__gt=1).count()


def check_invariants(campaign, acknowledged=None):
    """``{check name: violations}`` for ``campaign``; every value is 0 when the invariants hold.

    With ``acknowledged`` (a list of :class:`Acknowledged`), also: each acknowledged submit
    is stored exactly once with its score. Ratings stored without an acknowledgement (the
    response was lost, e.g. its worker was killed after the commit) are reported under
    ``stored_not_acknowledged``; they are not violations, and a retry must not duplicate them.
    """
    from django.db.models import Count, F, Q

    from core.models import Assignment, Item, Rating

    holding = (Assignment.Status.LEASED, Assignment.Status.DONE)
    items = Item.objects.filter(campaign=campaign)
    ratings = Rating.objects.filter(campaign=campaign)
    counted = Q(ratings__excluded=False)
    result = {
        "items_over_m_ratings": items.annotate(n=Count("ratings", filter=counted)).filter(n__gt=F("needed")).count(),
        "repeated_rater_item_ratings": _repeated(ratings),
        "repeated_rater_item_assignments": _repeated(Assignment.objects.filter(campaign=campaign)),
        "done_count_differs_from_ratings": items.annotate(n=Count("ratings", filter=counted))
        .exclude(done_count=F("n"))
        .count(),
        "active_count_differs_from_assignments": items.annotate(
            n=Count("assignments", filter=Q(assignments__status__in=holding))
        )
        .exclude(active_count=F("n"))
        .count(),
        "ratings_of_unfinished_assignments": ratings.filter(assignment__isnull=False, excluded=False)
        .exclude(assignment__status=Assignment.Status.DONE)
        .count(),
        "done_assignments_without_rating": Assignment.objects.filter(
            campaign=campaign, status=Assignment.Status.DONE, rating__isnull=True
        ).count(),
    }
    if acknowledged is not None:
        stored = {
            assignment_id: (username, score)
            for assignment_id, username, score in ratings.filter(assignment__isnull=False).values_list(
                "assignment_id", "rater__user__username", "score"
            )
        }
        acked_ids = {ack.assignment_id for ack in acknowledged}
        result["acknowledged_not_stored"] = sum(1 for ack in acknowledged if ack.assignment_id not in stored)
        result["acknowledged_stored_differently"] = sum(
            1
            for ack in acknowledged
            if ack.assignment_id in stored and stored[ack.assignment_id] != (ack.username, ack.score)
        )
        result["stored_not_acknowledged"] = len(set(stored) - acked_ids)
    return result


INFORMATIONAL = {"stored_not_acknowledged"}


def violations(checks):
    """The checks that failed (informational counts left out)."""
    return {name: count for name, count in checks.items() if count and name not in INFORMATIONAL}


def campaign_state(campaign):
    """Ratings stored against ratings expected, and live/expired leases: is the campaign complete?"""
    from django.db.models import Count, Q, Sum

    from core.models import Assignment

    totals = campaign.items.aggregate(done=Sum("done_count"), needed=Sum("needed"))
    leases = Assignment.objects.filter(campaign=campaign).aggregate(
        leased=Count("pk", filter=Q(status=Assignment.Status.LEASED)),
        expired=Count("pk", filter=Q(status=Assignment.Status.EXPIRED)),
    )
    return {
        "ratings": campaign.ratings.count(),
        "done_count": totals["done"] or 0,
        "expected": totals["needed"] or 0,
        "complete": (totals["done"] or 0) == (totals["needed"] or 0),
        **leases,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description="Check the rating invariants of a campaign; prints JSON.")
    parser.add_argument("--campaign-id", type=int, required=True)
    parser.add_argument("--acknowledged", help="JSON file: a list of {username, assignment_id, score}")
    args = parser.parse_args(argv)
    import django

    django.setup()
    from core.models import Campaign

    campaign = Campaign.objects.get(pk=args.campaign_id)
    acks = None
    if args.acknowledged:
        with open(args.acknowledged) as handle:
            acks = [Acknowledged(**entry) for entry in json.load(handle)]
    checks = check_invariants(campaign, acks)
    print(json.dumps({"checks": checks, "violations": violations(checks), "state": campaign_state(campaign)}))


def dump_acknowledged(acks, path):
    with open(path, "w") as handle:
        json.dump([asdict(ack) for ack in acks], handle)


if __name__ == "__main__":
    main()
