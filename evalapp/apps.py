from django.apps import AppConfig


class EvalappConfig(AppConfig):
    name = "evalapp"
    verbose_name = "ComVE evaluation"

    def ready(self):
        from core.events import rating_recorded
        from evalapp.tasks import race_after_rating

        rating_recorded.connect(race_after_rating, dispatch_uid="evalapp.race_after_rating")
