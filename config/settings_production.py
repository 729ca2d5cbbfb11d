"""Production settings: ``DJANGO_SETTINGS_MODULE=config.settings_production``.

Everything that differs between machines comes from the environment. The secret key and the
host names are required: a missing one stops the process at start-up with a message naming
the variable, instead of serving with a guessable key. TLS is normally terminated by a proxy
(nginx, a load balancer) in front of gunicorn; the ``DJANGO_SECURE_*`` variables say how.

Variables (defaults in brackets):
  DJANGO_SECRET_KEY or DJANGO_SECRET_KEY_FILE   required; at least 50 characters
  DJANGO_ALLOWED_HOSTS                          required; comma-separated host names
  DATABASE_URL                                  required; postgres://USER:PASS@HOST:PORT/NAME
  DJANGO_CSRF_TRUSTED_ORIGINS                   e.g. https://eval.example.org
  DB_CONN_MAX_AGE [600]                         seconds a database connection is reused
  DB_PREPARE_THRESHOLD [5]                      PostgreSQL: prepare a statement on its Nth run (off = never)
  DJANGO_SECURE_SSL_REDIRECT [1]                redirect http:// to https://
  DJANGO_SECURE_COOKIES [1]                     session and CSRF cookies only over HTTPS
  DJANGO_HSTS_SECONDS [31536000]                Strict-Transport-Security max-age (0 = off)
  DJANGO_HSTS_INCLUDE_SUBDOMAINS [1], DJANGO_HSTS_PRELOAD [1]
  DJANGO_TRUST_X_FORWARDED_PROTO [1]            the proxy sets X-Forwarded-Proto: https
  COMVE_LOG_LEVEL [INFO]
"""

import os

from django.core.exceptions import ImproperlyConfigured

from config.logging import logging_config
from config.settings import *  # noqa: F403
from config.settings import DATABASES, env_bool, env_list

ONE_YEAR_SECONDS = 365 * 24 * 3600
# Persistent connections: the rater loop makes two short requests per rating, and opening a
# PostgreSQL connection costs about as much as the request itself.
DEFAULT_CONN_MAX_AGE_SECONDS = 600
# Django's own check (security.W009) refuses shorter keys.
MIN_SECRET_KEY_CHARS = 50


def _required(name, hint):
    value = os.environ.get(name, "").strip()
    if not value:
        raise ImproperlyConfigured(
            f"{name} is not set: {hint} (config.settings_production reads it from the environment)"
        )
    return value


def _secret_key():
    path = os.environ.get("DJANGO_SECRET_KEY_FILE", "").strip()
    if path:
        try:
            with open(path, encoding="utf-8") as handle:
                key = handle.read().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"DJANGO_SECRET_KEY_FILE={path}: cannot read it ({exc.strerror})") from None
    else:
        key = _required(
            "DJANGO_SECRET_KEY",
            "set it to a long random string, e.g. the output of "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'",
        )
    if len(key) < MIN_SECRET_KEY_CHARS:
        raise ImproperlyConfigured(f"the secret key has {len(key)} characters; use at least {MIN_SECRET_KEY_CHARS}")
    return key


DEBUG = False
SECRET_KEY = _secret_key()
_required("DJANGO_ALLOWED_HOSTS", "comma-separated host names this site answers to")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS")
_required("DATABASE_URL", "e.g. postgres://comve:PASSWORD@127.0.0.1:5432/comve")

DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("DB_CONN_MAX_AGE", DEFAULT_CONN_MAX_AGE_SECONDS))
# A reused connection that the server closed (restart, failover, idle timeout) is replaced
# before the request uses it, instead of failing the request.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", ONE_YEAR_SECONDS))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", True)
if env_bool("DJANGO_TRUST_X_FORWARDED_PROTO", True):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Hashed file names (cacheable for ever) and pre-compressed copies, served by whitenoise.
WHITENOISE_USE_FINDERS = False
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# 4xx lines are noise under load (an expired session is a 302, a stale form a 409);
# server errors still go out with their traceback.
LOGGING = logging_config(
    os.environ.get("COMVE_LOG_LEVEL", "INFO"),
    formatter="%(asctime)s %(levelname)s %(process)d %(name)s: %(message)s",
    loggers={"django.request": {"level": "ERROR"}, "django.security": {"level": "WARNING"}},
)
