"""Importing ratings made outside the app (S4, S5): Mechanical Turk batch results, long-form CSV.

The one import path of ``manage.py import_ratings``, the web and the API. Imported ratings are
ordinary :class:`~core.models.Rating` rows (source ``mturk`` or ``long``) with a done
:class:`~core.models.Assignment`, and the item counters move as the engine moves them
(``active_count`` and ``done_count`` both +1), so they enter every result like ratings made
in the app and the check constraints ``done <= active <= needed`` keep holding.

What refuses the whole file (nothing written; the message names file, line and column): an
unreadable file, a required column missing, a row naming an instance or system that has no
item in the campaign, a reason that differs from the stored output. What rejects one row
(the others are kept): a score that is not an integer 0-3, an empty id, an item that already
has its M ratings, a rater rating the same item twice. Rows of rejected assignments are skipped.
"""

import hashlib
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from core.defaults import RATINGS_FILE_HASH_CHARS
from core.models import Assignment, Item, ItemOutput, Rater, Rating
from core.problems import FormatError, Problem
from evalapp.formats.ratings import LONG, MTURK, Rejection, columns_for, parse_ratings

SOURCE_OF_FORMAT = {MTURK: Rating.Source.MTURK, LONG: Rating.Source.LONG}
PLATFORM_OF_FORMAT = {MTURK: Rater.Platform.MTURK, LONG: Rater.Platform.IMPORT}
# A synthetic rater id is built from the file's content hash, so importing the same file again
# finds the same raters and every row is rejected as a repeat instead of counted twice.


@dataclass
class RatingsImport:
    """What an import did; ``as_json`` is the S5 contract of ``import_ratings --json``."""

    file: str
    format: str
    accepted: int = 0
    rejected: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    unknown: list = field(default_factory=list)
    raters_created: int = 0

    def as_json(self):
        return {
            "file": self.file,
            "format": self.format,
            "accepted": self.accepted,
            "rejected": [r.as_dict() for r in self.rejected],
            "skipped": len(self.skipped),
            "skipped_rows": [{"line": line, "reason": why} for line, why in self.skipped],
            "unknown": self.unknown,
            "raters_created": self.raters_created,
        }


def _normalise(text):
    """Reasons compare equal up to whitespace (crowd platforms re-wrap and trim text)."""
    return " ".join((text or "").split())


def _item_index(campaign):
    """``{(instance external id, system name): (item id, output text)}`` for the campaign's system items."""
    rows = ItemOutput.objects.filter(campaign=campaign, item__kind=Item.Kind.SYSTEM).values_list(
        "output__instance__external_id", "output__system__name", "item_id", "output__text"
    )
    return {(instance, system): (item, text) for instance, system, item, text in rows}


def _rater_key(row, fmt, file_hash):
    """The rater's (platform, external id): the worker id when known, else a synthetic one."""
    if row.worker:
        return PLATFORM_OF_FORMAT[fmt], row.worker
    if fmt == MTURK:
        unit = f"assignment:{row.assignment}" if row.assignment else f"line:{row.line}"
        return Rater.Platform.IMPORT, f"mturk-{file_hash}:{unit}"
    return Rater.Platform.IMPORT, f"file-{file_hash}"


def _match_items(parsed, fmt, system, index, filename):
    """Pair each parsed row with its item; refuse the file on a row that has no item or a wrong reason."""
    problems, matched = [], []
    columns = parsed.columns
    for row in parsed.rows:
        system_name = system or row.system
        if not system_name:
            parsed.rejected.append(Rejection(row.line, "", "system is empty", columns.system))
            continue
        found = index.get((row.instance_id, system_name))
        if found is None:
            problems.append(
                Problem(
                    filename,
                    row.line,
                    columns.instance,
                    f"no item for instance {row.instance_id!r} of system {system_name!r} in this campaign",
                    row.instance_id,
                )
            )
            continue
        item_id, text = found
        if row.reason is not None and _normalise(row.reason) != _normalise(text):
            problems.append(
                Problem(
                    filename,
                    row.line,
                    columns.reason,
                    f"reason does not match the stored output of system {system_name!r} for "
                    f"instance {row.instance_id!r}",
                    row.reason,
                )
            )
            continue
        matched.append((row, item_id))
    if problems:
        raise FormatError(problems)
    return matched


def _raters(keys):
    """``{key: Rater}`` for every (platform, external id), creating the missing ones; and how many were new."""
    existing = {}
    for platform in {platform for platform, _ in keys}:
        ids = [external for p, external in keys if p == platform]
        for rater in Rater.objects.filter(platform=platform, external_id__in=ids):
            existing[platform, rater.external_id] = rater
    missing = [key for key in keys if key not in existing]
    created = Rater.objects.bulk_create(
        [Rater(platform=platform, external_id=external) for platform, external in missing]
    )
    existing.update({(rater.platform, rater.external_id): rater for rater in created})
    return existing, len(missing)


def import_ratings(campaign, data, filename, fmt, system=None, columns=None):
    """Import a ratings file into ``campaign``; returns a :class:`RatingsImport`.

    ``system`` names the system of every row (Mechanical Turk files of one system's outputs).
    ``columns`` maps options (instance, score, system, reason, worker, status, seconds,
    assignment) to column names; the format's defaults apply to the others. Raises :class:`FormatError`
    when the file is refused; then nothing was written.
    """
    column_options = {name: value for name, value in (columns or {}).items() if value}
    columns = columns_for(fmt, **column_options)
    user_options = list(column_options)
    if system is not None and fmt == LONG:
        raise FormatError(
            Problem("--system", None, None, "applies to --format mturk only; long form names the system on every row")
        )
    parsed = parse_ratings(data, filename, fmt, columns, system_given=system is not None, user_options=user_options)
    result = RatingsImport(file=filename, format=fmt, skipped=parsed.skipped, unknown=parsed.unknown)
    file_hash = hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()[:RATINGS_FILE_HASH_CHARS]
    with transaction.atomic():
        matched = _match_items(parsed, fmt, system, _item_index(campaign), filename)
        keys = {_rater_key(row, fmt, file_hash) for row, _ in matched}
        raters, result.raters_created = _raters(keys)
        items = {
            item.pk: item
            for item in Item.objects.select_for_update().filter(pk__in={item_id for _, item_id in matched})
        }
        already = set(Rating.objects.filter(item_id__in=items).values_list("item_id", "rater_id"))
        already |= set(Assignment.objects.filter(item_id__in=items).values_list("item_id", "rater_id"))
        now = timezone.now()
        new = []
        for row, item_id in matched:
            item, rater = items[item_id], raters[_rater_key(row, fmt, file_hash)]
            if (item_id, rater.pk) in already:
                parsed.rejected.append(Rejection(row.line, row.instance_id, "this rater has already rated this item"))
                continue
            if item.active_count >= item.needed:
                parsed.rejected.append(
                    Rejection(
                        row.line, row.instance_id, f"item already has its {item.needed} ratings (done or in progress)"
                    )
                )
                continue
            item.active_count += 1
            item.done_count += 1
            already.add((item_id, rater.pk))
            new.append((row, item, rater))
        _write(campaign, new, SOURCE_OF_FORMAT[fmt], now)
        Item.objects.bulk_update(list({item.pk: item for _, item, _ in new}.values()), ["active_count", "done_count"])
    result.accepted = len(new)
    result.rejected = sorted(parsed.rejected, key=lambda r: r.line)
    return result


def _write(campaign, new, source, now):
    assignments = Assignment.objects.bulk_create(
        Assignment(
            item=item,
            rater=rater,
            campaign=campaign,
            status=Assignment.Status.DONE,
            leased_at=now,
            lease_expires_at=now,
            completed_at=now,
        )
        for _, item, rater in new
    )
    Rating.objects.bulk_create(
        Rating(
            item=item,
            rater=rater,
            campaign=campaign,
            assignment=assignment,
            score=row.score,
            seconds=row.seconds,
            source=source,
        )
        for (row, item, rater), assignment in zip(new, assignments)
    )
