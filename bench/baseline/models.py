"""The table of the baseline's insert: ``bench/rater_load.py`` compares the rater loop with one
authenticated read and one insert on the same stack."""

from django.conf import settings
from django.db import models


class Probe(models.Model):
    """A row written by the baseline view only."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    value = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["user", "-id"], name="bench_probe_user_idx")]
