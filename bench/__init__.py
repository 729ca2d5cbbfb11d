"""Benchmarks: run by hand, they print figures (docs/benchmarks.md has the commands and the results)."""
