"""Benchmark: importing the real ComVE test set and the 17 shared test-set systems.

    python bench/import_bench.py                      # SQLite, and PostgreSQL when a server URL is known
    python bench/import_bench.py --database sqlite
    python bench/import_bench.py --database postgres --postgres-url postgres://comve@127.0.0.1:54329/comve

Each database is fresh (a new SQLite file, or a new PostgreSQL database on the server) and
migrated before timing. The import goes through the product's own services, the ones that
``import_comve`` / ``import_submission`` and the upload pages call, and the script prints the
wall time and peak resident memory of each step, and the total.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.aggregate_bench import measure
from bench.loadstats import format_table
from bench.server import REPO, BenchDatabase, postgres_server_url, production_env, setup_django

DEFAULT_COMVE_DIR = Path(os.environ.get("COMVE_SHARED_DIR", REPO.parent / "shared" / "comve"))
TEST_SYSTEM_PATTERN = re.compile(r"^\| (\S+_test\.csv) \| test \| \d+ \| ([\d.]+) \|", re.M)


def test_systems(comve_dir):
    """The test-set system files that SOURCES.md lists, with their official BLEU."""
    text = (comve_dir / "SOURCES.md").read_text(encoding="utf-8")
    return [(comve_dir / "systems" / name, float(bleu)) for name, bleu in TEST_SYSTEM_PATTERN.findall(text)]


def run(kind, comve_dir, postgres_url):
    workdir = Path(tempfile.mkdtemp(prefix="comve-import-"))
    database = BenchDatabase(kind, workdir, f"comve_import_{os.getpid()}", postgres_url)
    setup_django(production_env(database.url, workdir))
    from django.core.management import call_command

    from evalapp.services.imports import import_comve, import_submission

    systems = test_systems(comve_dir)
    results = {}

    def import_dataset():
        results["dataset"] = import_comve(
            "comve-test",
            comve_dir / "test_statements.csv",
            comve_dir / "test_references.csv",
            pairs=comve_dir / "test_statement_pairs.csv",
            pair_answers=comve_dir / "test_statement_pairs_answers.csv",
        )

    def import_systems():
        for path, _ in systems:
            started = time.perf_counter()
            imported = import_submission(results["dataset"].dataset, path.stem.removesuffix("_test"), path)
            results.setdefault("systems", []).append((path.name, imported.official_bleu, time.perf_counter() - started))

    try:
        call_command("migrate", verbosity=0)
        started = time.perf_counter()
        rows = [
            measure("import_comve: 1,000 statements, 3,000 references, 1,000 pairs", import_dataset),
            measure(f"import_submission x {len(systems)} (1,000 reasons each, BLEU included)", import_systems),
        ]
        total = time.perf_counter() - started
        rows.append(["total", f"{total:.2f}", "", "", ""])
        print(f"\n{kind}: {database.url if kind == 'sqlite' else 'fresh database on ' + database.server_url}")
        print(format_table([row[:4] for row in rows], ["step", "seconds", "peak RSS MiB", "RSS growth MiB"]))
        per_system = [seconds for _, _, seconds in results["systems"]]
        print(f"per system: mean {sum(per_system) / len(per_system):.3f} s, max {max(per_system):.3f} s")
        wrong = [
            (name, bleu, official)
            for (name, bleu, _), (_, official) in zip(results["systems"], systems)
            if f"{bleu:.4f}" != f"{official:.4f}"
        ]
        print("official BLEU: all equal to SOURCES.md to 4 decimals" if not wrong else f"BLEU MISMATCH: {wrong}")
    finally:
        database.drop()
        for path in workdir.glob("*.sqlite3*"):
            path.unlink()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database",
        choices=("sqlite", "postgres"),
        help="one database only (default: SQLite, then PostgreSQL when a server URL is known)",
    )
    parser.add_argument(
        "--postgres-url", help="server URL (default: $COMVE_BENCH_POSTGRES_URL or $COMVE_TEST_POSTGRES_URL)"
    )
    parser.add_argument("--comve-dir", type=Path, default=DEFAULT_COMVE_DIR, help="the shared ComVE folder")
    args = parser.parse_args(argv)
    if not (args.comve_dir / "SOURCES.md").exists():
        parser.error(f"no ComVE data at {args.comve_dir} (give --comve-dir)")
    if args.database:
        run(args.database, args.comve_dir, args.postgres_url)
        return
    kinds = ["sqlite"]
    try:
        postgres_server_url(args.postgres_url)
        kinds.append("postgres")
    except SystemExit as exc:  # no server configured: SQLite only, and say why
        print(f"PostgreSQL skipped: {exc}")
    # Django is configured once per process, so each database runs in its own process.
    for kind in kinds:
        command = [sys.executable, __file__, "--database", kind, "--comve-dir", str(args.comve_dir)]
        if args.postgres_url:
            command += ["--postgres-url", args.postgres_url]
        subprocess.run(command, check=True)


if __name__ == "__main__":
    main()
