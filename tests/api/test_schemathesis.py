"""Schemathesis against the OpenAPI schema of a live server: no request may end in a server
error, and every status code, content type and JSON body must be the one the schema documents.

The server is ``manage.py runserver`` on a free port over a fresh SQLite file seeded with the
world of :mod:`tests.api.world`; schemathesis (its CLI, as CI or a developer would run it)
generates requests from ``/api/schema/`` in every phase (coverage, fuzzing, stateful) with a
bounded number of examples, once as the organizer (every endpoint but the rater's) and once
as a rater (the rater's endpoints). Path ids are pinned to the seeded objects so that the
requests reach the real logic instead of stopping at 404.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
EXAMPLES_PER_OPERATION = 5
# No server error (the requirement), and the schema tells the truth about statuses and bodies.
CHECKS = "not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance"
SEED = 2020
# One worker: with several, schemathesis generates in threads, and CPython 3.11's ast.parse
# (used by hypothesis to describe filters) is not thread-safe ("AST constructor recursion
# depth mismatch").
WORKERS = 1
SERVER_START_SECONDS = 60
RUN_TIMEOUT_SECONDS = 300
POLL_SECONDS = 0.25
SEED_SCRIPT = "import json; from tests.api.world import fuzzing_seed; print(json.dumps(fuzzing_seed()))"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def manage(env, *args):
    return subprocess.run(
        [sys.executable, str(REPO / "manage.py"), *args], env=env, cwd=REPO, check=True, capture_output=True, text=True
    )


def wait_until_serving(url, server, log_path):
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server stopped: {log_path.read_text()}")
        try:
            with urllib.request.urlopen(url):
                return
        except OSError:
            time.sleep(POLL_SECONDS)
    raise RuntimeError(f"the server did not answer {url} within {SERVER_START_SECONDS} s")


@pytest.fixture(scope="module")
def live_api(tmp_path_factory):
    """A seeded server: yields its base URL, the seeded ids and tokens, and a scratch folder."""
    folder = tmp_path_factory.mktemp("fuzz")
    env = {key: value for key, value in os.environ.items() if key != "COMVE_TEST_DB_NAME"}
    env.update(DATABASE_URL=f"sqlite:///{folder / 'fuzz.sqlite3'}", COMVE_VAR_DIR=str(folder), PYTHONPATH=str(REPO))
    manage(env, "migrate", "--verbosity", "0")
    seeded = json.loads(manage(env, "shell", "--command", SEED_SCRIPT).stdout.strip().splitlines()[-1])
    base = f"http://127.0.0.1:{free_port()}"
    log_path = folder / "server.log"
    # The request log goes to a file: a pipe nobody reads would fill up and stall the server.
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [sys.executable, str(REPO / "manage.py"), "runserver", base.split("//")[1], "--noreload"],
            env=env,
            cwd=REPO,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until_serving(f"{base}/api/schema/", server, log_path)
        yield base, seeded, folder
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait()


def run_schemathesis(live_api, role, path_filter):
    base, seeded, folder = live_api
    config = folder / f"{role}.toml"
    parameters = "\n".join(
        f'"path.{name}" = {seeded[name]}'
        for name in ("dataset_id", "campaign_id", "rater_id", "assignment_id", "run_id", "item_id")
    )
    config.write_text(f'headers = {{ Authorization = "Token {seeded["tokens"][role]}" }}\n[parameters]\n{parameters}\n')
    command = [
        str(SCHEMATHESIS),
        "--config-file",
        str(config),
        "run",
        f"{base}/api/schema/",
        "--checks",
        CHECKS,
        "--max-examples",
        str(EXAMPLES_PER_OPERATION),
        "--seed",
        str(SEED),
        "--workers",
        str(WORKERS),
        "--no-color",
        *path_filter,
    ]
    # cwd: schemathesis keeps its example database in the working folder, not in the repository.
    result = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert "Server error" not in output, output[-6000:]
    return output


def test_no_server_error_as_organizer(live_api):
    output = run_schemathesis(live_api, "organizer", ["--exclude-path-regex", "^/api/(rate/|auth/token/)"])
    assert "passed" in output


def test_no_server_error_as_rater(live_api):
    output = run_schemathesis(live_api, "rater", ["--include-path-regex", "^/api/(rate/|me/)"])
    assert "passed" in output
