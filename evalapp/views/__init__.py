"""Organizer and researcher pages, one module per area; their routes are in ``evalapp/urls.py``."""
