"""Logging: every line once, on one console handler, and a refused request (4xx) in one line.

Django's own defaults give the ``django`` logger a console handler of its own; with the root
logger's handler as well, every request warning was printed twice. Here ``django`` keeps no
handler and propagates to the root, and the development server's access lines
(``django.server``) keep Django's one handler. A 403 raised as ``PermissionDenied`` is logged by
Django with its traceback; :class:`OneLineForClientErrors` drops the traceback of any request
that ended in a 4xx (it is the client's mistake, not the server's), so a 5xx alone carries one.
"""

import logging

SERVER_ERROR = 500


class OneLineForClientErrors(logging.Filter):
    """Drop the traceback of a record about a response below 500."""

    def filter(self, record):
        if getattr(record, "status_code", SERVER_ERROR) < SERVER_ERROR:
            record.exc_info = None
            record.exc_text = None
        return True


def logging_config(level, formatter=None, loggers=None):
    """The LOGGING setting: one console handler on the root, ``level`` and ``loggers`` as given."""
    handler = {"class": "logging.StreamHandler", "filters": ["one_line_for_client_errors"]}
    config = {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"one_line_for_client_errors": {"()": OneLineForClientErrors}},
        "handlers": {"console": handler},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {"django": {"handlers": [], "propagate": True}, **(loggers or {})},
    }
    if formatter:
        config["formatters"] = {"plain": {"format": formatter}}
        handler["formatter"] = "plain"
    return config
