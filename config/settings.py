"""Settings read from the environment.

Defaults give the embedded setup (SQLite file under var/, DEBUG off unless DJANGO_DEBUG=1); production overrides
live in ``config.settings_production``. ``DATABASE_URL`` accepts ``sqlite:///PATH`` and
``postgres://USER:PASS@HOST:PORT/NAME``.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.logging import logging_config
from core import defaults as _defaults

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("COMVE_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name, default=""):
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# Off unless set: only scripts/demo.sh (the embedded demo on 127.0.0.1) turns it on.
DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-only-insecure-key-change-me")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")
# Keeps a rater's choice when the page's token went stale (protocol.md#rater-screen), instead of a bare 403.
CSRF_FAILURE_VIEW = "annotators.views.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "axes",
    "csp",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_tasks",
    "django_tasks_db",
    "core",
    "evalapp",
    "annotators",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "core.middleware.RequestHygieneMiddleware",
    "core.middleware.IdleTimeoutMiddleware",
    "core.middleware.NoStoreForSignedInMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its own response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "core.roles.context_processor",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"


# psycopg's own default: a statement is prepared on its fifth run on a connection.
PREPARE_THRESHOLD = 5


# An acknowledged rating must survive a power loss: in WAL mode only FULL syncs the log at every
# commit (NORMAL may lose the last commits, though never corrupts the file). docs/benchmarks.md
# has what it costs the rater loop.
SQLITE_SYNCHRONOUS_MODES = ("FULL", "EXTRA", "NORMAL")


def sqlite_synchronous():
    """SQLite's ``synchronous`` mode: FULL unless COMVE_SQLITE_SYNCHRONOUS says otherwise (a benchmark's baseline)."""
    mode = os.environ.get("COMVE_SQLITE_SYNCHRONOUS", "FULL").strip().upper()
    if mode not in SQLITE_SYNCHRONOUS_MODES:
        raise ImproperlyConfigured(
            f"COMVE_SQLITE_SYNCHRONOUS={mode!r}: choose one of {', '.join(SQLITE_SYNCHRONOUS_MODES)}"
        )
    return mode


def database_from_env():
    """Parse DATABASE_URL; SQLite gets IMMEDIATE transactions so writers queue, never fail."""
    url = os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
    config = dj_database_url.parse(url, conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "0")))
    if config["ENGINE"] == "django.db.backends.sqlite3":
        config.setdefault("OPTIONS", {}).update(
            {
                "transaction_mode": "IMMEDIATE",
                "timeout": 30,
                "init_command": f"PRAGMA journal_mode=WAL; PRAGMA synchronous={sqlite_synchronous()};",
            }
        )
    if config["ENGINE"] == "django.db.backends.postgresql":
        # Parameters bound by the server, and a statement prepared the fifth time it runs on a
        # connection (Django turns that off by default, for poolers that cannot keep them): the
        # rater loop's statements are then parsed once per connection instead of on every call.
        # DB_PREPARE_THRESHOLD=off behind PgBouncer older than 1.21 in transaction mode.
        threshold = os.environ.get("DB_PREPARE_THRESHOLD", str(PREPARE_THRESHOLD))
        config.setdefault("OPTIONS", {}).update(
            server_side_binding=True, prepare_threshold=None if threshold == "off" else int(threshold)
        )
    # Lets parallel test runs share one PostgreSQL server (each its own test database), and
    # each pytest-xdist worker (PYTEST_XDIST_WORKER=gw0, gw1, ...) of one run its own database
    # too: test_i22_gw0, test_i22_gw1 (tests/conftest.py leaves pytest-django's suffix out).
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    suffix = f"_{worker}" if worker else ""
    if os.environ.get("COMVE_TEST_DB_NAME") or (worker and config["ENGINE"] != "django.db.backends.sqlite3"):
        base = os.environ.get("COMVE_TEST_DB_NAME") or f"test_{config['NAME']}"
        config.setdefault("TEST", {})["NAME"] = base + suffix
    # SQLite tests run on a file under var/ when named (or asked for with COMVE_SQLITE_TEST_FILE=1):
    # threads cannot share an in-memory database, and the concurrency tests need threads.
    if config["ENGINE"] == "django.db.backends.sqlite3" and (
        os.environ.get("COMVE_TEST_DB_NAME") or env_bool("COMVE_SQLITE_TEST_FILE")
    ):
        name = os.environ.get("COMVE_TEST_DB_NAME") or "test_comve"
        config.setdefault("TEST", {})["NAME"] = str(VAR_DIR / f"{name}{suffix}.sqlite3")
    return config


DATABASES = {"default": database_from_env()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on every request when it is missing
# Outside production the static files are served from the source folders, DEBUG on or off, with no
# collectstatic; the production settings serve only the collected, hashed copies.
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Crowd platforms (protocol.md#crowd). Extra origins (besides www.mturk.com and workersandbox.mturk.com) that
# turkSubmitTo may name and that may frame the rater screens: only for tests with a fake MTurk.
COMVE_MTURK_SUBMIT_HOSTS = env_list("COMVE_MTURK_SUBMIT_HOSTS")
# The rater screens inside MTurk's frame are a third-party context: the session and CSRF cookies
# must be SameSite=None, which browsers accept only with Secure (HTTPS). Off by default so that
# plain http on 127.0.0.1 keeps working.
if env_bool("COMVE_CROWD_IFRAME_COOKIES"):
    SESSION_COOKIE_SAMESITE = CSRF_COOKIE_SAMESITE = "None"
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True

# django-axes first (it refuses a locked-out login before any password is checked), then Django's
# ModelBackend, reading the user's Rater profile with the user.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "core.auth_backend.RaterLoadingBackend"]
USER_BACKEND = "core.auth_backend.RaterLoadingBackend"  # the one that logs users in and loads them

# Login protection on every door (the web login, the admin login, the API token): after
# AXES_FAILURE_LIMIT failures for one account from one client address, that pair is locked out
# for COMVE_LOCKOUT_MINUTES. The counts are kept in the database, so every process and machine
# counts together; admins see and clear them in the admin (Axes), or with `manage.py axes_reset`.
AXES_FAILURE_LIMIT = int(os.environ.get("COMVE_LOGIN_FAILURE_LIMIT", "10"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("COMVE_LOCKOUT_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "errors/locked.html"
# The client's address: REMOTE_ADDR, or X-Forwarded-For only behind COMVE_TRUSTED_PROXIES proxies
# (a header a client sets itself cannot choose its address then).
TRUSTED_PROXIES = int(os.environ.get("COMVE_TRUSTED_PROXIES", "0"))
AXES_CLIENT_IP_CALLABLE = "core.login_protection.client_address"
AXES_USERNAME_CALLABLE = "core.login_protection.username"

# Passwords: Django's four validators.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# A signed-in session ends after this long without a request (core.middleware.IdleTimeoutMiddleware).
SESSION_IDLE_SECONDS = int(os.environ.get("COMVE_SESSION_IDLE_MINUTES", "120")) * 60
# Crowd entry throttles ("N/second|minute|hour|day"): per client address, and per campaign (429 beyond).
COMVE_CROWD_ENTRY_RATE_PER_ADDRESS = os.environ.get(
    "COMVE_CROWD_ENTRY_RATE_PER_ADDRESS", _defaults.CROWD_ENTRY_RATE_PER_ADDRESS
)
COMVE_CROWD_ENTRY_RATE_PER_CAMPAIGN = os.environ.get(
    "COMVE_CROWD_ENTRY_RATE_PER_CAMPAIGN", _defaults.CROWD_ENTRY_RATE_PER_CAMPAIGN
)

# One shared cache for every process (the API throttles count there): a table of the database.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "comve_cache"}}

# Content-Security-Policy (django-csp): only this site's own scripts, styles and images (plots are
# images, data: URLs included); no inline script or style; forms post to this site only (a finished
# HIT's form to MTurk: annotators/views/rating.py); no framing, except the rater screens by
# Mechanical Turk (annotators/views/framing.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Uploads: a submission or ratings file larger than this is refused with a clear message.
COMVE_MAX_UPLOAD_BYTES = int(os.environ.get("COMVE_MAX_UPLOAD_BYTES", str(20 * 1024 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = COMVE_MAX_UPLOAD_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = COMVE_MAX_UPLOAD_BYTES

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "core.api.authentication.StrictTokenAuthentication",
    ],
    # The throttles' client address: REMOTE_ADDR, or X-Forwarded-For behind the trusted proxies only.
    "NUM_PROXIES": TRUSTED_PROXIES,
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [
        "core.api.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "ComVE-Eval API",
    "DESCRIPTION": "Human evaluation of generated explanations (SemEval-2020 Task 4, Subtask C).",
    "VERSION": "1.0.0",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # No deep links: Swagger UI puts each one inside its operation's button (an interactive element
    # in another, which screen readers cannot reach; axe: nested-interactive). templates/api/docs.html
    "SWAGGER_UI_SETTINGS": {"deepLinking": False},
}

TASKS = {
    "default": {
        "BACKEND": os.environ.get("COMVE_TASKS_BACKEND", "django_tasks_db.DatabaseBackend"),
    }
}

LOGGING = logging_config(os.environ.get("COMVE_LOG_LEVEL", "WARNING"))

# API tokens (django-rest-knox): hashed at rest, sent as "Authorization: Token <token>", valid
# for COMVE_TOKEN_DAYS days.
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=int(os.environ.get("COMVE_TOKEN_DAYS", "30"))),
    "AUTH_HEADER_PREFIX": "Token",
    "AUTO_REFRESH": False,
}
