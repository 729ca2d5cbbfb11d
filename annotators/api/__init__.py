"""The rater's REST endpoints (``/api/rate/...``): ``views.py`` the endpoints, ``urls.py`` their routes."""
