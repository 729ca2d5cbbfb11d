"""OpenAPI generation: every operation also documents the error responses it can give.

drf-spectacular documents only the success body; a client (and schemathesis) should also
know that errors have the ``{"detail", "problems"}`` body and when they occur.
"""

from drf_spectacular.openapi import AutoSchema
from rest_framework import generics
from rest_framework.permissions import AllowAny

from core.api.serializers import ErrorSerializer

UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
JSON = "application/json"


class ApiSchema(AutoSchema):
    def error_codes(self):
        """400 for a body or query options, 401/403 unless open to all, 404 for an id or a page number."""
        paginated = isinstance(self.view, generics.ListAPIView) and self.method == "GET"
        codes = []
        if self.method in UNSAFE_METHODS or self.get_override_parameters():
            codes.append("400")
        if not any(isinstance(permission, AllowAny) for permission in self.view.get_permissions()):
            codes += ["401", "403"]
        if "{" in self.path or paginated:
            codes.append("404")
        return codes

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code in self.error_codes():
            if code not in responses:
                responses[code] = self._get_response_for_code(ErrorSerializer, code, [JSON], direction)
        return responses
