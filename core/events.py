"""Domain events that code outside ``core`` may react to, without ``core`` knowing who listens."""

from django.dispatch import Signal

#: Sent after the transaction that stored a new rating commits, with ``campaign_id`` and ``racing``
#: (the campaign's racing setting when the engine had the campaign at hand, else None). The rating
#: path writes through SQL of its own (``core.rating_sql``), so Django's ``post_save`` never fires
#: for it. Racing (``evalapp.services.sequential``) listens: a racing campaign retires its decided
#: systems as ratings arrive, in the background worker.
rating_recorded = Signal()
