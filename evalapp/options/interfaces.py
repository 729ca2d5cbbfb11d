"""The three doors of a job's options, generated from its one declaration (:mod:`evalapp.options.base`).

- :func:`options_form`: a Django form whose fields render as before (checkbox, number with min/max, select,
  text with maxlength) and whose ``clean`` builds the options object (``form.options``);
- :func:`options_serializer`: a DRF serializer with typed fields (so drf-spectacular documents types,
  bounds, choices and defaults) whose ``validate`` builds it (``serializer.options``);
- :func:`add_arguments` and :func:`from_command`: the command's flags, and the options object from them.

Every door parses a value with the same :meth:`Spec.parse <evalapp.options.base.Spec.parse>` and builds
the object with the same :meth:`Options.build <evalapp.options.base.Options.build>`: the same input is
accepted or refused the same way, a refusal naming the same field with the same message. This is how
pretix feeds one exporter's ``export_form_fields`` to both its form and its API's job serializer.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any, TypeVar

from django import forms
from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.core.management.base import CommandError
from django.http import QueryDict
from rest_framework import serializers

from evalapp.formats.comve import SourceFile, too_large_message
from evalapp.options.base import REQUIRED, Door, Kind, OptionError, Options, Spec

JobOptions = TypeVar("JobOptions", bound=Options)

# Uploads -----------------------------------------------------------------------------------------------


def source_of_upload(upload: Any) -> SourceFile:
    """An uploaded file as a :class:`SourceFile`, refused (ValueError) above ``COMVE_MAX_UPLOAD_BYTES``."""
    limit = settings.COMVE_MAX_UPLOAD_BYTES
    if upload.size > limit:
        raise ValueError(f"{upload.name}: {too_large_message(upload.size, limit)}")
    return SourceFile(upload.name, upload.read())


def _uploaded(spec: Spec, value: Any) -> Any:
    """A file option's upload made a SourceFile before its spec parses it (other values as they are)."""
    if spec.kind is Kind.FILE and isinstance(value, UploadedFile):
        return source_of_upload(value)
    return value


# Web forms ---------------------------------------------------------------------------------------------


class RawCheckboxInput(forms.CheckboxInput):
    """A checkbox that hands its raw value to the option's parser (Django's would turn "abc" into True)."""

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        return data.get(name)


class ListInput(forms.SelectMultiple):
    """Several values of one name (checkboxes or a multiple select)."""

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        return data.getlist(name) if hasattr(data, "getlist") else data.get(name)


class OptionFormField(forms.Field):
    """A form field whose value is parsed by its option's spec, as at the other doors."""

    def __init__(self, name: str, spec: Spec, options: type[Options], **kwargs: Any) -> None:
        self.option_name, self.spec, self.options_class = name, spec, options
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> Any:
        try:
            return self.options_class.parse_one(self.option_name, _uploaded(self.spec, value), Door.WEB)
        except (OptionError, ValueError) as error:
            raise forms.ValidationError(getattr(error, "message", str(error))) from None

    def validate(self, value: Any) -> None:
        if value is None and self.spec.required:
            raise forms.ValidationError(REQUIRED)


def _widget(spec: Spec) -> forms.Widget:
    if spec.kind is Kind.BOOL:
        return RawCheckboxInput()
    if spec.kind is Kind.CHOICE:
        return forms.Select(choices=spec.choices)
    if spec.kind is Kind.TEXTS:
        return ListInput(choices=spec.choices)
    if spec.kind is Kind.FILE:
        return forms.FileInput()
    attrs: dict[str, Any] = {}
    if spec.kind in (Kind.INT, Kind.FLOAT):
        maximum = spec.maximum_at(Door.WEB)
        attrs.update({"min": spec.minimum, "max": maximum, "step": "any" if spec.kind is Kind.FLOAT else None})
        return forms.NumberInput(attrs={k: v for k, v in attrs.items() if v is not None})
    if spec.max_length is not None:
        attrs["maxlength"] = spec.max_length
    return forms.TextInput(attrs=attrs)


_FORMS: dict[type[Options], type[OptionsForm]] = {}
_SERIALIZERS: dict[type[Options], type[OptionsSerializer]] = {}


class OptionsForm(forms.Form):
    """A generated form: ``form.options`` is the options object once ``is_valid()``."""

    options_class: type[Options]
    options: Options | None = None

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors:
            try:
                self.options = self.options_class.build(data, Door.WEB)
            except OptionError as error:
                self.add_error(error.field if error.field in self.fields else None, error.message)
        return data

    def problems(self) -> str:
        """The errors in one line, each naming its field (a download answers 400 with it)."""
        return "; ".join(f"{name}: {' '.join(str(e) for e in errors)}" for name, errors in self.errors.items())


def options_form(options: type[Options]) -> type[OptionsForm]:
    """The Django form of ``options``: the fields the web offers, labelled and bounded as declared (made once)."""
    if options not in _FORMS:
        _FORMS[options] = _make_form(options)
    return _FORMS[options]


def _make_form(options: type[Options]) -> type[OptionsForm]:
    fields: dict[str, Any] = {}
    for name, spec in options.offered_at(Door.WEB).items():
        default = getattr(options, name, None) if not isinstance(getattr(options, name, None), tuple) else None
        # A select always sends one of its values: shown as required when the option has a default.
        shown_required = spec.required or (spec.kind is Kind.CHOICE and default is not None)
        fields[name] = OptionFormField(
            name,
            spec,
            options,
            required=shown_required,
            label=spec.label,
            help_text=spec.help if spec.web_help is None else spec.web_help,
            initial=None if spec.kind is Kind.BOOL else default,
            widget=_widget(spec),
        )
    return type(
        f"{options.__name__}Form", (OptionsForm,), {**fields, "options_class": options, "__doc__": options.__doc__}
    )


def options_of_form(options: type[JobOptions], form: OptionsForm) -> JobOptions:
    """The options object of a valid generated form of ``options``."""
    if not isinstance(form.options, options):
        raise TypeError(f"{type(form).__name__} is not a valid form of {options.__name__}")
    return form.options


def options_from_query(options: type[JobOptions], query: QueryDict | Mapping[str, Any]) -> JobOptions:
    """The options of a web request's query or POST (an :class:`OptionError` names the first bad field)."""
    form = options_form(options)(query)
    if form.is_valid():
        return options_of_form(options, form)
    name, errors = next(iter(form.errors.items()))
    raise OptionError(name, " ".join(str(e) for e in errors))


# The REST API ------------------------------------------------------------------------------------------

_SERIALIZER_FIELDS: dict[Kind, type[serializers.Field]] = {
    Kind.BOOL: serializers.BooleanField,
    Kind.INT: serializers.IntegerField,
    Kind.FLOAT: serializers.FloatField,
    Kind.CHOICE: serializers.ChoiceField,
    Kind.TEXT: serializers.CharField,
    Kind.TEXTS: serializers.ListField,
    Kind.FILE: serializers.FileField,
}


def _parse_in_api(name: str, options: type[Options]) -> Any:
    spec = options.specs()[name]

    def to_internal_value(self: serializers.Field, data: Any) -> Any:
        if spec.kind is Kind.FILE:
            data = serializers.FileField.to_internal_value(self, data)  # a file with a name, or refused
        try:
            return options.parse_one(name, _uploaded(spec, data), Door.API)
        except (OptionError, ValueError) as error:
            raise serializers.ValidationError(getattr(error, "message", str(error))) from None

    return to_internal_value


def _no_validators(self: serializers.Field, value: Any) -> None:
    """The spec has checked the value; the typed field's own validators would only repeat it."""


def _serializer_field(name: str, spec: Spec, options: type[Options]) -> serializers.Field:
    base = _SERIALIZER_FIELDS[spec.kind]
    field_class = type(
        f"Option{base.__name__}",
        (base,),
        {"to_internal_value": _parse_in_api(name, options), "run_validators": _no_validators},
    )
    kwargs: dict[str, Any] = {"help_text": spec.help}
    default = getattr(options, name, None)
    if spec.required:
        kwargs["required"] = True
    elif default is not None:
        kwargs["default"] = list(default) if isinstance(default, tuple) else default
    else:
        kwargs.update(required=False, allow_null=True)
    if spec.kind in (Kind.INT, Kind.FLOAT):
        kwargs.update(min_value=spec.minimum, max_value=spec.maximum_at(Door.API))
    elif spec.kind is Kind.CHOICE:
        kwargs.update(choices=spec.choices, allow_blank=spec.blank_value is not None)
    elif spec.kind is Kind.TEXT:
        kwargs.update(max_length=spec.max_length, allow_blank=not spec.required)
    elif spec.kind is Kind.TEXTS:
        kwargs["child"] = serializers.CharField(max_length=spec.max_length)
    return field_class(**kwargs)


class OptionsSerializer(serializers.Serializer):
    """A generated serializer: ``serializer.options`` is the options object once ``is_valid()``."""

    options_class: type[Options]
    options: Options | None = None

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            self.options = self.options_class.build(attrs, Door.API)
        except OptionError as error:
            raise serializers.ValidationError({error.field: [error.message]}) from None
        return attrs


def options_serializer(options: type[Options]) -> type[OptionsSerializer]:
    """The DRF serializer of ``options``: the fields the API offers, typed, bounded and documented (made once,
    so that the API schema names one component per job)."""
    if options not in _SERIALIZERS:
        _SERIALIZERS[options] = _make_serializer(options)
    return _SERIALIZERS[options]


def _make_serializer(options: type[Options]) -> type[OptionsSerializer]:
    fields = {name: _serializer_field(name, spec, options) for name, spec in options.offered_at(Door.API).items()}
    name = f"{options.api_name or options.__name__}Serializer"
    return type(name, (OptionsSerializer,), {**fields, "options_class": options, "__doc__": options.__doc__})


def options_from_request(options: type[JobOptions], data: Any) -> JobOptions:
    """The options of an API request's query or body; a refusal is the API's 400 naming the field."""
    serializer = options_serializer(options)(data=data)
    serializer.is_valid(raise_exception=True)
    if not isinstance(serializer.options, options):
        raise TypeError(f"{type(serializer).__name__} did not build {options.__name__}")
    return serializer.options


# Management commands -----------------------------------------------------------------------------------


def flag_of(name: str, spec: Spec | None = None) -> str:
    """The command's flag of an option: ``--top-k`` for ``top_k`` unless declared otherwise."""
    return (spec.flag if spec is not None else "") or "--" + name.replace("_", "-")


def _command_help(spec: Spec, default: Any) -> str:
    text = spec.help.replace("%", "%%")
    if spec.kind is not Kind.BOOL and default not in (None, ()):
        text += f" Default: {default}."
    return text


def add_arguments(parser: argparse.ArgumentParser, options: type[Options]) -> None:
    """The command's flags of ``options``: every value is read as text and parsed by the spec."""
    for name, spec in options.offered_at(Door.COMMAND).items():
        default = getattr(options, name, None)
        flag = flag_of(name, spec)
        if spec.kind is Kind.BOOL:
            parser.add_argument(flag, dest=name, action="store_true", default=None, help=_command_help(spec, default))
            continue
        metavar = spec.metavar or ("{" + ",".join(spec.choice_values) + "}" if spec.kind is Kind.CHOICE else None)
        parser.add_argument(
            flag,
            dest=name,
            required=spec.required,
            default=None,
            metavar=metavar,
            help=_command_help(spec, default),
        )


def command_error(options: type[Options], error: OptionError) -> CommandError:
    """A refused option as the command says it: naming its flag (``--top-k: must be at least 2``)."""
    flag = flag_of(error.field, options.specs().get(error.field))
    return CommandError(f"{flag}: {error.message}")


def from_command(options: type[JobOptions], parsed: Mapping[str, Any]) -> JobOptions:
    """The options from a command's parsed arguments; a refusal is a CommandError naming the flag."""
    try:
        return options.build(parsed, Door.COMMAND)
    except OptionError as error:
        raise command_error(options, error) from None
