"""The benchmark baseline: the cheapest rater-like round trip this stack can serve.

``bench/rater_load.py`` drives it beside the rater loop, so that the report can say how much
of the stack's own limit (sessions, authentication, CSRF, one read, one insert, a page that
extends ``base.html``) the rater loop reaches. Only ``bench/settings.py`` installs this app.
"""

import random
from functools import partial

from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from bench.baseline.models import Probe
from core.defaults import SCORE_MAX, SCORE_MIN
from core.retry import retry_on_contention


@login_required
@require_http_methods(["GET", "POST"])
def baseline(request):
    """GET reads the user's last probe row and renders a form; POST inserts one row and redirects.

    Security: login required (any role); CSRF on for the POST; GET changes nothing; the
    page shows only the caller's own last value.
    """
    if request.method == "POST":
        retry_on_contention(partial(_insert, request.user))
        return redirect("bench_baseline")
    last = Probe.objects.filter(user=request.user).order_by("-id").values_list("value", flat=True).first()
    return render(request, "bench/baseline.html", {"last": last})


def _insert(user):
    # The product's write path (on SQLite, the process's writers take turns, as the engine's do).
    with transaction.atomic():
        Probe.objects.create(user=user, value=random.randint(SCORE_MIN, SCORE_MAX))
