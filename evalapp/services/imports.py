"""Importing a dataset and the teams' submissions (S4, S5).

The one import path that ``manage.py import_comve`` / ``import_submission``, the data pages
and the API call. Files are parsed and checked completely before the database is touched,
and everything is written in one transaction: a refused import writes nothing.
"""

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from django.conf import settings
from django.db import IntegrityError, transaction

from core.defaults import BULK_CREATE_BATCH, NAME_MAX_CHARS, REFERENCE_POSITIONS
from core.models import Dataset, Instance, ItemOutput, Reference, System, SystemOutput
from core.problems import FormatError, Problem
from evalapp.compute import official_bleu
from evalapp.formats.comve import SourceFile, parse_dataset, parse_submission, problems_as_dicts
from evalapp.models import Submission


def refuse(field_name: str, message: str) -> NoReturn:
    """Refuse an import for a reason that is not in a file (a name, an option)."""
    raise FormatError(Problem(field_name, None, None, message))


def as_source(source):
    """A :class:`SourceFile` from a path (str/Path) or an existing SourceFile."""
    if isinstance(source, SourceFile):
        return source
    return SourceFile.from_path(Path(source), max_bytes=settings.COMVE_MAX_UPLOAD_BYTES)


def _check_name(field_name, value):
    value = (value or "").strip()
    if not value:
        refuse(field_name, "must not be empty")
    if len(value) > NAME_MAX_CHARS:
        refuse(field_name, f"is {len(value)} characters long; the limit is {NAME_MAX_CHARS}")
    return value


@dataclass
class DatasetImport:
    dataset: Dataset
    instances: int
    references: int
    true_sentences: int
    warnings: list = field(default_factory=list)

    def as_json(self):
        return {
            "dataset": self.dataset.name,
            "split": self.dataset.split,
            "instances": self.instances,
            "references": self.references,
            "true_sentences": self.true_sentences,
            "warnings": problems_as_dicts(self.warnings),
        }


def import_comve(name, statements, references, pairs=None, pair_answers=None, split=Dataset.Split.TEST):
    """Create dataset ``name`` from its statements and references (and optional pairs + answers).

    Each file is a path or a :class:`SourceFile`. A dataset of the same name is never
    overwritten: the import is refused.
    """
    name = _check_name("dataset name", name)
    if split not in Dataset.Split.values:
        refuse("split", f"'{split}' is not one of {', '.join(Dataset.Split.values)}")
    exists = f"a dataset named '{name}' already exists; choose another name (a dataset is never overwritten)"
    if Dataset.objects.filter(name=name).exists():
        refuse("dataset name", exists)
    sources = [as_source(s) if s is not None else None for s in (statements, references, pairs, pair_answers)]
    parsed = parse_dataset(*sources, max_bytes=settings.COMVE_MAX_UPLOAD_BYTES)
    try:
        with transaction.atomic():
            if Dataset.objects.filter(name=name).exists():
                refuse("dataset name", exists)
            dataset = Dataset.objects.create(name=name, split=split)
            instances = Instance.objects.bulk_create(
                [
                    Instance(
                        dataset=dataset,
                        external_id=item.id,
                        position=position,
                        false_sent=item.false_sent,
                        true_sent=item.true_sent,
                    )
                    for position, item in enumerate(parsed.instances)
                ],
                batch_size=BULK_CREATE_BATCH,
            )
            references_created = Reference.objects.bulk_create(
                [
                    Reference(instance=instance, position=position, text=text)
                    for instance, item in zip(instances, parsed.instances)
                    for position, text in zip(REFERENCE_POSITIONS, item.references)
                    if text
                ],
                batch_size=BULK_CREATE_BATCH,
            )
    except IntegrityError:  # a concurrent import of the same name won the race
        refuse("dataset name", exists)
    return DatasetImport(
        dataset,
        len(instances),
        len(references_created),
        sum(1 for item in parsed.instances if item.true_sent),
        parsed.warnings,
    )


@dataclass
class SubmissionImport:
    system: System
    submission: Submission
    missing: int
    warnings: list = field(default_factory=list)

    @property
    def rows(self):
        return self.submission.rows

    @property
    def official_bleu(self):
        return self.submission.official_bleu

    def as_json(self):
        """The S5 contract of ``import_submission --json`` (plus a few more keys)."""
        return {
            "system": self.system.name,
            "rows": self.rows,
            "official_bleu": self.official_bleu,
            "warnings": problems_as_dicts(self.warnings),
            "dataset": self.system.dataset.name,
            "marker": self.system.marker,
            "partial": self.submission.partial,
            "missing": self.missing,
            "submission_id": self.submission.pk,
            "sha256": self.submission.sha256,
            "bleu_signature": official_bleu.signature(),
        }


def get_dataset(dataset: Dataset | str) -> Dataset:
    """A Dataset from an instance or its name; an unknown name is refused with the known ones."""
    if isinstance(dataset, Dataset):
        return dataset
    found = Dataset.objects.filter(name=dataset).first()
    if found is None:
        known = ", ".join(Dataset.objects.values_list("name", flat=True)) or "none yet"
        refuse("dataset", f"there is no dataset named '{dataset}' (datasets: {known})")
    return found


def dataset_references(dataset):
    """``{instance pk: [reference texts in position order]}`` of a dataset."""
    references = {}
    for instance_id, text in (
        Reference.objects.filter(instance__dataset=dataset)
        .order_by("instance_id", "position")
        .values_list("instance_id", "text")
    ):
        references.setdefault(instance_id, []).append(text)
    return references


def dataset_bleu(dataset, reasons_by_instance):
    """The official Subtask C BLEU (0-100) of a complete set of outputs of ``dataset``; None
    when an instance has no reference (the official figure is then undefined)."""
    references = dataset_references(dataset)
    if not reasons_by_instance or set(references) != set(reasons_by_instance):
        return None
    instance_ids = list(references)
    result = official_bleu.corpus_bleu(
        [reasons_by_instance[i] for i in instance_ids], [references[i] for i in instance_ids]
    )
    return result.score


def import_submission(dataset, system_name, source, marker=None, allow_partial=False, user=None):
    """Import a system's ``id,reason`` file; re-importing replaces its outputs.

    ``marker`` ``'*'``/``'+'``/``''`` sets the Table 6 marker; None keeps the current one.
    A partial file (a subset of the ids) needs ``allow_partial`` and gets no official BLEU.
    Outputs already placed in a campaign cannot change: the ratings belong to that text.
    """
    dataset = get_dataset(dataset)
    system_name = _check_name("system name", system_name)
    if system_name.lower() == System.HUMAN_NAME.lower():
        refuse("system name", f"'{System.HUMAN_NAME}' is reserved for the human-reference pseudo-system")
    if marker is not None and marker not in System.Marker.values:
        refuse("marker", f"'{marker}' is not a marker; use '*', '+' or nothing")
    source = as_source(source)
    instances = list(dataset.instances.order_by("position").values_list("external_id", "pk"))
    pk_of = dict(instances)
    parsed = parse_submission(
        source,
        [external_id for external_id, _ in instances],
        allow_partial=allow_partial,
        max_bytes=settings.COMVE_MAX_UPLOAD_BYTES,
        dataset_label=f"dataset '{dataset.name}'",
    )
    reasons = {pk_of[external_id]: text for external_id, text in parsed.reasons.items()}
    bleu = None if parsed.partial else dataset_bleu(dataset, reasons)
    with transaction.atomic():
        system, created = System.objects.get_or_create(
            dataset=dataset, name=system_name, is_human=False, defaults={"marker": marker or ""}
        )
        # Concurrent uploads of one system queue here, so each sees the outputs the other wrote.
        system = System.objects.select_for_update().get(pk=system.pk)
        if not created and marker is not None and marker != system.marker:
            system.marker = marker
            system.save(update_fields=["marker"])
        _replace_outputs(system, reasons)
        submission = Submission.objects.create(
            system=system,
            filename=Path(source.name).name[:255],
            sha256=hashlib.sha256(source.data).hexdigest(),
            rows=len(reasons),
            partial=parsed.partial,
            official_bleu=bleu,
            warnings=problems_as_dicts(parsed.warnings),
            uploaded_by=user if user and user.is_authenticated else None,
        )
    return SubmissionImport(system, submission, len(parsed.missing), parsed.warnings)


def _replace_outputs(system, reasons):
    """Make the system's outputs exactly ``reasons`` (instance pk -> text), keeping the rows
    that do not change; refuses when a changed or removed output is in a campaign."""
    existing = {output.instance_id: output for output in SystemOutput.objects.filter(system=system)}
    removed = [output for instance_id, output in existing.items() if instance_id not in reasons]
    changed = [
        output
        for instance_id, output in existing.items()
        if instance_id in reasons and output.text != reasons[instance_id]
    ]
    in_use = sorted(
        set(ItemOutput.objects.filter(output__in=removed + changed).values_list("campaign__name", flat=True))
    )
    if in_use:
        refuse(
            "system name",
            f"system '{system.name}' has outputs in campaign(s) {', '.join(in_use)}, and this file "
            "changes or removes them; import it under a new system name",
        )
    SystemOutput.objects.filter(pk__in=[output.pk for output in removed]).delete()
    for output in changed:
        output.text = reasons[output.instance_id]
    SystemOutput.objects.bulk_update(changed, ["text"], batch_size=BULK_CREATE_BATCH)
    SystemOutput.objects.bulk_create(
        [
            SystemOutput(system=system, instance_id=instance_id, text=text)
            for instance_id, text in reasons.items()
            if instance_id not in existing
        ],
        batch_size=BULK_CREATE_BATCH,
    )
