"""Latency and error bookkeeping of a load run, and its printed table."""

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

PERCENTILES = (50, 95, 99)
MS_PER_SECOND = 1000.0


@dataclass
class LoadStats:
    """What one phase of a load run measured (all simulated users together)."""

    label: str
    latencies: dict = field(default_factory=dict)  # request kind -> list of seconds
    errors: Counter = field(default_factory=Counter)  # "kind: status or exception" -> count
    completed: int = 0  # ratings (rater loop) or read+insert pairs (baseline)
    seconds: float = 0.0
    client_cpu_seconds: float = 0.0  # CPU the load generator itself used in this phase

    def record(self, kind, seconds):
        self.latencies.setdefault(kind, []).append(seconds)

    def error(self, kind, what):
        self.errors[f"{kind}: {what}"] += 1

    @property
    def requests(self):
        return sum(len(values) for values in self.latencies.values())

    @property
    def rate(self):
        """Completed units per second of wall time."""
        return self.completed / self.seconds if self.seconds else 0.0

    def percentiles_ms(self, kind):
        values = self.latencies.get(kind)
        if not values:
            return [float("nan")] * len(PERCENTILES)
        return [float(v) * MS_PER_SECOND for v in np.percentile(np.asarray(values), PERCENTILES)]

    def as_dict(self):
        return {
            "label": self.label,
            "completed": self.completed,
            "seconds": round(self.seconds, 3),
            "client_cpu_seconds": round(self.client_cpu_seconds, 3),
            "rate": round(self.rate, 2),
            "requests": self.requests,
            "errors": dict(self.errors),
            "latency_ms": {
                kind: dict(zip((f"p{p}" for p in PERCENTILES), (round(v, 2) for v in self.percentiles_ms(kind))))
                for kind in self.latencies
            },
        }


def latency_cells(stats, kind):
    return "/".join(f"{value:.1f}" for value in stats.percentiles_ms(kind))


def format_table(rows, header):
    """A plain-text table: columns padded to their widest cell."""
    cells = [header] + [[str(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
