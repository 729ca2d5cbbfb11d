"""The benchmark baseline: the cheapest rater-like round trip this stack can serve.

``bench/rater_load.py`` drives it beside the rater loop, so that the report can say how much
of the stack's own limit (sessions, authentication, CSRF, one read, one insert, a page that
extends ``base.html``) the rater loop reaches. It exists only when the production settings
run with ``COMVE_BENCH_BASELINE=1``, which makes this module the root URLconf; a normal
deployment never routes to it.
"""
import random
from functools import partial

from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.shortcuts import redirect, render
from django.urls import path
from django.views.decorators.http import require_http_methods

from evalapp.models import SCORE_MAX, SCORE_MIN, BenchProbe
from evalapp.services.retry import retry_on_contention
from evalapp.urls import urlpatterns as product_urlpatterns


@login_required
@require_http_methods(["GET", "POST"])
def baseline(request):
    """GET reads the user's last probe row and renders a form; POST inserts one row and redirects.

    Security: login required (any role); CSRF on for the POST; GET changes nothing; the
    page shows only the caller's own last value. Routed only under COMVE_BENCH_BASELINE=1.
    """
    if request.method == "POST":
        retry_on_contention(partial(_insert, request.user))
        return redirect("bench_baseline")
    last = BenchProbe.objects.filter(user=request.user).order_by("-id").values_list("value", flat=True).first()
    return render(request, "bench/baseline.html", {"last": last})


def _insert(user):
    # The product's write path (on SQLite, the process's writers take turns, as the engine's do).
    with transaction.atomic():
        BenchProbe.objects.create(user=user, value=random.randint(SCORE_MIN, SCORE_MAX))


urlpatterns = [path("bench-baseline/", baseline, name="bench_baseline"), *product_urlpatterns]
