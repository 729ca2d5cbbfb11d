"""Benchmarks: run by hand, they print figures (see docs/readme/70-deploy.md)."""
