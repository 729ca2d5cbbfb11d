"""Benchmark: reconciling crowd sessions with a 20 MiB platform export (issue 18).

    python bench/reconciliation_bench.py --database sqlite
    python bench/reconciliation_bench.py --database postgres --postgres-url postgres://comve@127.0.0.1:54329/comve

The probe of issue 18 sent the crowd-submissions endpoint a 20 MiB MTurk batch-results CSV of
unknown rows: 22-26 s (gunicorn's timeout is 30 s) and a 117 MB JSON answer. This script builds
a campaign with ``--sessions`` crowd sessions, writes a file of the platform's real layout that
lists them and fills the rest of ``--megabytes`` with rows of no session here (``--short-rows``:
only the three columns read, the most records per MiB), and times the
service the page, the API and the command call, printing the answer's size too.
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.server import BenchDatabase, production_env, setup_django

HEADER = (
    '"HITId","HITTypeId","Title","Reward","CreationTime","MaxAssignments","AssignmentId","WorkerId",'
    '"AssignmentStatus","AcceptTime","SubmitTime","AutoApprovalTime","ApprovalTime","RejectionTime",'
    '"WorkTimeInSeconds","Answer.assignmentId","Approve","Reject"'
)


def row(assignment, worker, status="Approved"):
    return (
        f'"3HIT0000000000000000000000001","3TYPE0000000000000000000000000","Why is this statement against '
        f'common sense?","$0.50","Mon Nov 23 09:00:00 PST 2026","3","{assignment}","{worker}","{status}",'
        f'"Mon Nov 23 09:01:00 PST 2026","Mon Nov 23 09:09:00 PST 2026","Thu Nov 26 09:09:00 PST 2026","","",'
        f'"480","{assignment}","",""'
    )


def short_row(assignment, worker, status="Approved"):
    return f"{assignment},{worker},{status}"


def build_file(sessions, megabytes, short=False):
    header, make = ("AssignmentId,WorkerId,AssignmentStatus", short_row) if short else (HEADER, row)
    lines = [header] + [make(f"3ASSIGN{n:010d}", f"A{n:012d}") for n in range(sessions)]
    size = sum(len(line) + 1 for line in lines)
    n = 0
    while size < megabytes * 1024 * 1024 - 400:
        line = make(f"3UNKNOWN{n:012d}", f"B{n:012d}")
        lines.append(line)
        size += len(line) + 1
        n += 1
    return ("\n".join(lines) + "\n").encode()


def run(kind, sessions, megabytes, postgres_url, short=False):
    workdir = Path(tempfile.mkdtemp(prefix="comve-reconcile-"))
    database = BenchDatabase(kind, workdir, f"comve_reconcile_{os.getpid()}", postgres_url)
    setup_django(production_env(database.url, workdir, COMVE_MAX_UPLOAD_BYTES=str((megabytes + 1) * 1024 * 1024)))
    from django.core.management import call_command

    from core.models import Campaign, CrowdSession, Dataset, Rater
    from evalapp.formats.comve import SourceFile
    from evalapp.services.crowd import import_crowd_submissions

    try:
        call_command("migrate", verbosity=0)
        campaign = Campaign.objects.create(
            name="reconcile", dataset=Dataset.objects.create(name="ds"), mturk_enabled=True
        )
        raters = Rater.objects.bulk_create(Rater(platform="mturk", external_id=f"A{n:012d}") for n in range(sessions))
        CrowdSession.objects.bulk_create(
            CrowdSession(
                campaign=campaign,
                rater=rater,
                platform="mturk",
                session_id=f"3ASSIGN{n:010d}",
                task_id="3HIT0000000000000000000000001",
            )
            for n, rater in enumerate(raters)
        )
        data = build_file(sessions, megabytes, short)
        started = time.perf_counter()
        result = import_crowd_submissions(campaign, "mturk", SourceFile("Batch_results.csv", data))
        seconds = time.perf_counter() - started
        answer = json.dumps(result.as_json())
        print(
            f"{kind}: {len(data) / 2**20:.1f} MiB, {result.records:,} records ({sessions:,} sessions here, "
            f"{result.not_in_campaign_count:,} of no session): {seconds:.2f} s, answer {len(answer):,} bytes; "
            f"{result.verified:,} verified"
        )
    finally:
        database.drop()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument(
        "--postgres-url", help="server URL (default: $COMVE_BENCH_POSTGRES_URL or $COMVE_TEST_POSTGRES_URL)"
    )
    parser.add_argument("--sessions", type=int, default=1000, help="crowd sessions in the campaign (default 1,000)")
    parser.add_argument("--megabytes", type=float, default=20, help="size of the file in MiB (default 20)")
    parser.add_argument(
        "--short-rows",
        action="store_true",
        help="only the three columns read (the most records per MiB), not MTurk's full layout",
    )
    args = parser.parse_args(argv)
    run(args.database, args.sessions, args.megabytes, args.postgres_url, args.short_rows)


if __name__ == "__main__":
    main()
