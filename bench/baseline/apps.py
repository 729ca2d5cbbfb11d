from django.apps import AppConfig


class BaselineConfig(AppConfig):
    """The benchmark's bare-stack baseline; installed only by ``bench/settings.py``, never in the product."""

    name = "bench.baseline"
    label = "bench_baseline"
    verbose_name = "Benchmark baseline"
