"""The development server's console: each line once, and a refused request in one line (no traceback)."""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from tests.conftest import REPO

TIMEOUT_SECONDS = 60
SESSION_CODE = """
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from core.models import Rater
user = get_user_model().objects.create_user("console-rater", password="pw-console-rater-1")
Rater.objects.create(user=user)
session = SessionStore()
session["_auth_user_id"] = str(user.pk)
session["_auth_user_backend"] = "core.auth_backend.RaterLoadingBackend"
session["_auth_user_hash"] = user.get_session_auth_hash()
session.create()
print(session.session_key)
"""


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def manage(env, *args):
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=TIMEOUT_SECONDS
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def get(url, cookie):
    request = urllib.request.Request(url, headers={"Cookie": f"sessionid={cookie}"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_a_403_is_one_line_and_every_line_is_printed_once(tmp_path):
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DJANGO_", "COMVE_", "DATABASE"))}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings", DJANGO_DEBUG="1", COMVE_VAR_DIR=str(tmp_path), PYTHONUNBUFFERED="1"
    )
    manage(env, "migrate", "--noinput", "--verbosity", "0")
    cookie = manage(env, "shell", "--no-imports", "-c", SESSION_CODE).strip().splitlines()[-1]
    port = free_port()
    log = tmp_path / "server.log"
    with open(log, "w") as output:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=REPO,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + TIMEOUT_SECONDS
        while "Quit the server" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert get(f"http://127.0.0.1:{port}/results/", cookie) == 403
        time.sleep(0.5)
    finally:
        server.terminate()
        server.wait(timeout=TIMEOUT_SECONDS)
    lines = log.read_text().splitlines()
    assert sum("Forbidden (Permission denied): /results/" in line for line in lines) == 1, lines
    assert sum('"GET /results/ HTTP/1.1" 403' in line for line in lines) == 1, lines
    assert not any("Traceback" in line or "PermissionDenied" in line for line in lines), lines
