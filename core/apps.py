from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The domain: models, their invariants and the assignment engine. Imports no other app."""

    name = "core"
    verbose_name = "ComVE-Eval domain"

    def ready(self):
        from django.urls import register_converter

        from core import signals
        from core.api.urls import IdConverter

        register_converter(IdConverter, "id")
        signals.connect()
