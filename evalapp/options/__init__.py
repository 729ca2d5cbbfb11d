"""Each job's options, declared once (``base``) and offered at three doors (``interfaces``)."""
