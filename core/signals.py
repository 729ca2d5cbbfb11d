"""Reactions of the domain to changes elsewhere: a changed password revokes the account's API tokens;
a login starts the session's idle clock."""

from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import pre_save
from knox.models import AuthToken


def revoke_tokens_on_password_change(sender, instance, update_fields=None, **kwargs):
    """Whoever held a token of the account must log in again with the new password."""
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    stored = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    if stored is not None and stored != instance.password:
        AuthToken.objects.filter(user_id=instance.pk).delete()


def start_idle_clock(sender, request, user, **kwargs):
    """The idle limit counts from the login, not from the first request after it (issue 18)."""
    from core.middleware import start_idle_clock as start

    if request is not None and hasattr(request, "session"):
        start(request.session)


def connect():
    user_logged_in.connect(start_idle_clock, dispatch_uid="core.start_idle_clock")
    pre_save.connect(
        revoke_tokens_on_password_change, sender=get_user_model(), dispatch_uid="core.revoke_tokens_on_password_change"
    )
