"""The API's JSON parser: bounded in size and depth, and refusing text that no field can hold.

Python's parser recurses once per nesting level, so ``[[[...]]]`` 50,000 deep would end in a
RecursionError (a 500); a NUL byte or a lone surrogate in a string would reach the database as
an error there. Each is a 400 here that says what is wrong and where (a JSON path).
"""

import json

from django.conf import settings
from rest_framework.exceptions import ParseError, UnsupportedMediaType, ValidationError
from rest_framework.parsers import JSONParser

from core.defaults import MAX_JSON_BYTES, MAX_JSON_DEPTH, NUL
from core.middleware import unsafe_charset

OPENERS, CLOSERS = frozenset("[{"), frozenset("]}")
QUOTE, BACKSLASH = '"', "\\"


def nesting_depth(data):
    """How deep the arrays and objects of JSON text ``data`` (decoded text) nest, read without recursion.

    Counted on the decoded text, not the bytes: in another encoding the brackets are other bytes.
    """
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == BACKSLASH:
                escaped = True
            elif byte == QUOTE:
                in_string = False
        elif byte == QUOTE:
            in_string = True
        elif byte in OPENERS:
            depth += 1
            deepest = max(deepest, depth)
        elif byte in CLOSERS:
            depth -= 1
    return deepest


def bad_text(value, path="$"):
    """The JSON path and the trouble of the first string (key or value) no text field accepts, or None."""
    stack = [(path, value)]
    while stack:
        where, node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in items:
            child_path = f"{where}.{key}" if isinstance(node, dict) else f"{where}[{key}]"
            for text, at in ((key, where), (child, child_path)):
                if isinstance(text, str):
                    if NUL in text:
                        return at, "contains a NUL byte (\\u0000)"
                    try:
                        text.encode("utf-8")
                    except UnicodeEncodeError:
                        return at, "contains a lone surrogate (an invalid \\ud800-\\udfff escape)"
            if isinstance(child, (dict, list)):
                stack.append((child_path, child))
    return None


class SafeJSONParser(JSONParser):
    """DRF's JSON parser with a size bound, a depth bound and text checks (see the module docstring)."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        if unsafe_charset(f"application/json; charset={encoding}") is not None:
            raise UnsupportedMediaType(media_type, f"The charset '{encoding[:40]}' is not accepted; send UTF-8 JSON.")
        data = stream.read(MAX_JSON_BYTES + 1) if stream is not None else b""
        if len(data) > MAX_JSON_BYTES:
            raise ParseError(f"The JSON body is larger than {MAX_JSON_BYTES:,} bytes.")
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as error:
            raise ParseError(f"The JSON body cannot be read: {error}") from None
        if nesting_depth(text) > MAX_JSON_DEPTH:
            raise ParseError(f"The JSON body nests deeper than {MAX_JSON_DEPTH} levels.")
        try:
            value = json.loads(text, parse_constant=_refuse_constant)
        except ValueError as error:
            raise ParseError(f"The JSON body cannot be read: {error}") from None
        trouble = bad_text(value)
        if trouble is not None:
            where, what = trouble
            # A 400 naming the field, as for any refused value (JSON path "$.note" -> field "note").
            raise ValidationError(
                {where.removeprefix("$.") if where != "$" else "body": f"The text {what}, which no field accepts."}
            )
        return value


def _refuse_constant(name):
    raise ValueError(f"{name} is not a JSON number")
