"""The REST API: serializers, permissions and views kept apart."""
