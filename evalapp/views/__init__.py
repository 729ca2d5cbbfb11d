"""Organizer and researcher pages, one module per area, each with its own ``urlpatterns``."""
