"""The process :class:`evalapp.metrics.bertscore.ChildRun` starts: BERTScore computed, then it ends.

``python -m evalapp.metrics.bertscore_child IN OUT``: reads the metric's settings, the hypotheses and the
references from the pipe ``IN``, loads the model and tokenises, waits for the parent's "go" on ``IN`` (the
parent computes other metrics meanwhile), then embeds and sends over ``OUT`` each progress call, then the
outputs and the embedding counts, or the error (pickled, as :mod:`multiprocessing.connection` frames them).
"""

from __future__ import annotations

import os
import sys
from multiprocessing.connection import Connection

from evalapp.metrics.bertscore import BertScore


def main(argv: list[str]) -> None:
    """Compute what the parent sends on ``argv[0]``; answer on ``argv[1]``."""
    receiver, sender = Connection(int(argv[0]), writable=False), Connection(int(argv[1]), readable=False)
    settings, hypotheses, references = receiver.recv()

    def progress(fraction: float, detail: str | None = None) -> None:
        sender.send(("progress", fraction, detail))

    try:
        metric = BertScore(**settings)
        metric.ready = receiver.recv  # the parent's "go": it is waiting for the result, the cores are free
        outputs = metric.compute(hypotheses, references, progress)
        sender.send(("done", outputs, metric.counts))
    except Exception as exc:  # raised again in the parent
        try:
            sender.send(("error", exc, None))
        except Exception:  # an exception that does not pickle: its type and message
            sender.send(("error", RuntimeError(f"{exc.__class__.__name__}: {exc}"), None))
    finally:
        receiver.close()
        sender.close()


if __name__ == "__main__":
    main(sys.argv[1:])
    # the answer is sent: leave without the interpreter's teardown of torch and the model (about a second)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
