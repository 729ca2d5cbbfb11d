from django.apps import AppConfig


class AnnotatorsConfig(AppConfig):
    name = "annotators"
    verbose_name = "Raters and ratings"

    def ready(self):
        from annotators import checks  # noqa: F401 (registers the crowd-settings checks)
