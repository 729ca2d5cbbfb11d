"""One error body for every API failure: ``{"detail": "...", "problems": [...]}``.

``detail`` is one human sentence; ``problems`` lists what exactly is wrong, either as a
field of the request (``{"field", "message"}``) or as a place in an uploaded file
(``{"file", "line", "column", "message", "value"}``, the same records the commands print).
"""

from rest_framework import exceptions, status
from rest_framework.views import exception_handler as drf_exception_handler

from core.problems import FormatError

INVALID_INPUT = "The request is not valid; see problems."
FILE_REJECTED = "The file was not imported (nothing was written); see problems."
NON_FIELD = "non_field_errors"


class Conflict(exceptions.APIException):
    """The request is well formed but the state of the campaign refuses it (409)."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state."
    default_code = "conflict"


class LockedOut(exceptions.APIException):
    """Too many failed logins for this account from this address (django-axes): wait, or ask an admin."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_detail = "Too many failed logins for this account from your address; try again later."
    default_code = "locked_out"


class Unprocessable(exceptions.APIException):
    """A file or request that parses but is refused, carrying its problems (400)."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid"

    def __init__(self, detail, problems=()):
        super().__init__(detail)
        self.problems = list(problems)


def field_problems(errors, prefix=""):
    """Flatten DRF's nested validation errors into ``{"field", "message"}`` records."""
    if isinstance(errors, dict):
        problems = []
        for name, value in errors.items():
            field = None if name == NON_FIELD else (f"{prefix}.{name}" if prefix else str(name))
            problems.extend(field_problems(value, field or prefix))
        return problems
    if isinstance(errors, list):
        problems = []
        for index, value in enumerate(errors):
            if isinstance(value, (dict, list)):
                problems.extend(field_problems(value, f"{prefix}[{index}]"))
            else:
                problems.append({"field": prefix or None, "message": str(value)})
        return problems
    return [{"field": prefix or None, "message": str(errors)}]


def exception_handler(exc, context):
    """DRF's handler, then the body reshaped to ``detail`` + ``problems``."""
    if isinstance(exc, FormatError):
        exc = Unprocessable(FILE_REJECTED, [problem.as_dict() for problem in exc.problems])
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, Unprocessable):
        response.data = {"detail": str(exc.detail), "problems": exc.problems}
    elif isinstance(exc, exceptions.ValidationError):
        response.data = {"detail": INVALID_INPUT, "problems": field_problems(exc.detail)}
    else:
        detail = response.data.get("detail", "") if isinstance(response.data, dict) else response.data
        response.data = {"detail": str(detail), "problems": []}
    return response
