from django.apps import AppConfig


class EvalappConfig(AppConfig):
    name = "evalapp"
    verbose_name = "ComVE evaluation"
