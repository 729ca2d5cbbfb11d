"""Reactions of the domain to changes elsewhere: a changed password revokes the account's API tokens."""
from django.contrib.auth import get_user_model
from django.db.models.signals import pre_save
from knox.models import AuthToken


def revoke_tokens_on_password_change(sender, instance, update_fields=None, **kwargs):
    """Whoever held a token of the account must log in again with the new password."""
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    stored = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    if stored is not None and stored != instance.password:
        AuthToken.objects.filter(user_id=instance.pk).delete()


def connect():
    pre_save.connect(revoke_tokens_on_password_change, sender=get_user_model(),
                     dispatch_uid="core.revoke_tokens_on_password_change")
