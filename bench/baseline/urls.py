"""The product's URLs plus the baseline's (the root URLconf of ``bench/settings.py``)."""

from django.urls import path

from bench.baseline.views import baseline
from config.urls import urlpatterns as product_urlpatterns

urlpatterns = [path("bench-baseline/", baseline, name="bench_baseline"), *product_urlpatterns]
