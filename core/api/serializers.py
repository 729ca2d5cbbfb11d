"""The error body every API endpoint shares, for the schema: ``{"detail", "problems": [...]}``."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string"}], "nullable": True})
class ColumnField(serializers.Field):
    """A file column: its 1-based number, or its name (a CSV header such as ``Answer.score``)."""

    def to_representation(self, value):
        return value


class ProblemSerializer(serializers.Serializer):
    """One problem: a request field (``field``) or a place in an uploaded file (``file``, ``line``, ``column``)."""

    message = serializers.CharField()
    field = serializers.CharField(required=False, allow_null=True)
    file = serializers.CharField(required=False)
    line = serializers.IntegerField(required=False, allow_null=True)
    column = ColumnField(required=False)
    value = serializers.CharField(required=False, allow_null=True)


class ErrorSerializer(serializers.Serializer):
    """The body of every error response."""

    detail = serializers.CharField()
    problems = ProblemSerializer(many=True)
