"""The background jobs as the services see them: queued by name, never by importing the tasks.

``evalapp/tasks.py`` defines the django-tasks tasks, which call the services, and registers each one
here under its name (:func:`job`) when it is imported; ``evalapp/apps.py`` imports it as the app
loads, in the web process, the worker and the commands alike. A service queues work with
:func:`enqueue`. So imports run one way, tasks -> services, and the import graph has no cycle (the
``evalapp`` layers contract of ``.importlinter`` and ``tests/architecture/test_import_cycles.py``
hold it there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from django_tasks import TaskResult

#: The metric study of a queued MetricRun (``metric_runs.start_run``), by its id.
METRIC_RUN = "metric-run"
#: Table 6's mixed model (``human_adjusted``) of a campaign's current ratings, into the cache
#: (``results.rater_effects``), by the campaign's id and the systems' names.
RATER_EFFECTS_FIT = "rater-effects-fit"


class Queueable(Protocol):
    """What a django-tasks ``Task`` offers the services: ``enqueue`` returns the queued result."""

    def enqueue(self, *args: Any, **kwargs: Any) -> TaskResult[Any]: ...


class NoSuchJob(LookupError):
    """A job was queued under a name no task registered (``evalapp.tasks`` not loaded)."""


Job = TypeVar("Job", bound=Queueable)

_jobs: dict[str, Queueable] = {}


def job(name: str) -> Callable[[Job], Job]:
    """Register the decorated task as the job ``name`` (applied over ``@task()`` in evalapp/tasks.py)."""

    def register(task: Job) -> Job:
        _jobs[name] = task
        return task

    return register


def enqueue(name: str, *args: Any) -> TaskResult[Any]:
    """Queue the job ``name`` with ``args`` on the task backend; the backend's result (its ``id``)."""
    try:
        task = _jobs[name]
    except KeyError:
        raise NoSuchJob(f"no background job {name!r}: is evalapp in INSTALLED_APPS (it loads evalapp.tasks)?") from None
    return task.enqueue(*args)
