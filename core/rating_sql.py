"""The assignment engine's per-rating statements, written once as SQL.

A rater makes two requests per rating, and building these statements through the ORM
(subqueries, annotations, row locks) cost more CPU than all the rest of the request:
``bench/rater_profile.py`` measured about 0.8 ms to compile the item pick alone against
0.05 ms to send it as text. So the statements on that path are plain SQL, the same on
SQLite and PostgreSQL; only the row-lock clause differs (SQLite has none: its transactions
start IMMEDIATE and writers queue instead). The rules they serve (which item, which submit
counts) are in :mod:`core.engine`; everything off that path stays in the ORM.

Robust at the seams: every table and column name comes from the models' ``_meta`` through
:class:`Table` (a renamed field fails at import, and ``tests/engine/test_rating_sql.py``
checks every column against the database), values go in as named parameters
(``%(campaign)s``), datetimes are adapted as the ORM adapts them, and datetimes read back are
made aware as the ORM makes them.
"""

from datetime import UTC
from functools import cache
from typing import ClassVar

from django.db import connection
from django.utils import timezone

from core.item_order import SHUFFLE_MODULUS
from core.models import Assignment, Campaign, Instance, Item, Rater, RaterExclusion, Rating


class Table:
    """A model's table under an alias: ``str(t)`` is ``"<table> <alias>"``, ``t("field")`` the qualified
    column of a field, ``t.columns(...)`` a bare column list. Every name is read from ``_meta``."""

    used: ClassVar[set[tuple[str, str]]] = set()  # (model label, field name) of every column the statements below name

    def __init__(self, model, alias):
        self.model, self.alias, self.name = model, alias, model._meta.db_table

    def column(self, field):
        Table.used.add((self.model._meta.label, field))
        return self.model._meta.get_field(field).column

    def __call__(self, field):
        return f"{self.alias}.{self.column(field)}"

    def columns(self, *fields):
        return ", ".join(self.column(field) for field in fields)

    def __str__(self):
        return f"{self.name} {self.alias}"


A = Table(Assignment, "a")
H = Table(Assignment, "h")  # the rater's earlier assignments, in "never had" tests
I = Table(Item, "i")  # noqa: E741 (the item table's alias, as in the SQL)
C = Table(Item, "c")  # an item chosen from a window
R = Table(Rater, "r")
E = Table(RaterExclusion, "e")
G = Table(Rating, "g")
S = Table(Instance, "s")
K = Table(Campaign, "k")

LEASED = Assignment.Status.LEASED
DONE = Assignment.Status.DONE

# The items the rater never had: neither an assignment (any status) nor an imported rating.
NEVER_HAD = (
    f"NOT EXISTS (SELECT 1 FROM {H} WHERE {H('item')} = {I('id')} AND {H('rater')} = %(rater)s) "
    f"AND NOT EXISTS (SELECT 1 FROM {G} WHERE {G('item')} = {I('id')} AND {G('rater')} = %(rater)s)"
)
# ``active_count < M`` repeats ``active_count < needed`` as a constant bound, so that the
# database reads only the open part of the item index (``item_pick_idx``).
WITH_ROOM = (
    f"{I('campaign')} = %(campaign)s AND {I('active_count')} < {I('needed')} "
    f"AND {I('active_count')} < %(raters_per_item)s"
)
# The same for counting: every item needs the campaign's M (``Item.needed`` is set so when the
# campaign is made), and without the per-row ``needed`` the count reads the index alone.
OPEN_SLOTS = f"{I('campaign')} = %(campaign)s AND {I('active_count')} < %(raters_per_item)s"


def rater_order(table):
    """The rater's permutation of the item keys (see ``core.item_order``); parameters ``multiplier``, ``offset``."""
    return f"(CAST({table('shuffle_key')} AS BIGINT) * %(multiplier)s + %(offset)s) %% {SHUFFLE_MODULUS}"


def take_slot_sql(also_done=False):
    """Count one more lease (and rating, with ``also_done``) on an item that has room; parameter ``item``."""
    active, done, needed = I.column("active_count"), I.column("done_count"), I.column("needed")
    more_done = f", {done} = {done} + 1" if also_done else ""
    return (
        f"UPDATE {I.name} SET {active} = {active} + 1{more_done} "
        f"WHERE {I.column('id')} = %(item)s AND {active} < {needed}"
    )


def writes_combine():
    """Whether several writes go in one statement (``WITH ... UPDATE``): PostgreSQL only.

    A round trip to the server costs it about as much CPU as a simple write itself, so on
    PostgreSQL the writes of one step are sent as one statement; SQLite runs in-process and
    has no data-modifying ``WITH``.
    """
    return connection.vendor == "postgresql"


def same_session(column):
    """``column`` equals the parameter ``crowd_session``, NULL equal to NULL: a lease outside any
    crowd session matches only requests from outside one, a session's only that session's."""
    operator = "IS NOT DISTINCT FROM" if connection.vendor == "postgresql" else "IS"
    return f"{column} {operator} %(crowd_session)s"


def lock_clause(of=None, skip_locked=False):
    """``FOR NO KEY UPDATE [OF t] [SKIP LOCKED]`` where the database has row locks; else nothing."""
    if not connection.features.has_select_for_update:
        return ""
    return " FOR NO KEY UPDATE" + (f" OF {of.alias}" if of else "") + (" SKIP LOCKED" if skip_locked else "")


def db_datetime(value):
    return connection.ops.adapt_datetimefield_value(value)


def aware(value):
    """A datetime read by raw SQL, as the ORM would return it (SQLite gives naive UTC)."""
    if value is None or timezone.is_aware(value):
        return value
    return timezone.make_aware(value, UTC)


def fetchone(sql, params):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def execute(sql, params):
    """Run a write; the number of rows it changed."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def from_row(model, fields, values):
    """A model instance from raw values of ``fields`` (attribute names), as the ORM would load it."""
    return model.from_db(connection.alias, [model._meta.get_field(field).attname for field in fields], list(values))


def open_campaign(campaign_id):
    """The campaign if it is open, else None: both rater requests start with it."""
    query = Campaign.objects.raw(
        f"SELECT * FROM {K.name} WHERE {K.column('id')} = %(campaign)s AND {K.column('status')} = %(open)s",
        {"campaign": campaign_id, "open": Campaign.Status.OPEN},
    )
    return next(iter(query), None)


# --- leasing -------------------------------------------------------------------------------


def lock_rater_state(rater_id, campaign_id, now, submitting=None, crowd_session_id=None):
    """Lock the rater's row and read ``(excluded, live lease id, assignments held, other leases)`` in one
    statement.

    ``submitting``: an assignment being submitted in the same transaction, which is not the
    live lease to resume. The live lease is the crowd session's (``crowd_session_id``; None:
    one taken outside any crowd session). ``other leases``: the rater's other rows still marked
    leased in the campaign (timed out, or another crowd session's), which the one-lease-per-rater
    index would refuse a new lease beside.
    """
    not_submitting = f" AND {A('id')} <> %(submitting)s" if submitting is not None else ""
    sql = (
        f"SELECT EXISTS (SELECT 1 FROM {E} WHERE {E('campaign')} = %(campaign)s AND {E('rater')} = {R('id')}), "
        f"(SELECT {A('id')} FROM {A} WHERE {A('campaign')} = %(campaign)s AND {A('rater')} = {R('id')} "
        f"AND {A('status')} = %(leased)s AND {A('lease_expires_at')} > %(now)s{not_submitting} "
        f"AND {same_session(A('crowd_session'))} ORDER BY {A('sequence')} LIMIT 1), "
        f"(SELECT COUNT(*) FROM {A} WHERE {A('campaign')} = %(campaign)s AND {A('rater')} = {R('id')}), "
        f"(SELECT COUNT(*) FROM {A} WHERE {A('campaign')} = %(campaign)s AND {A('rater')} = {R('id')} "
        f"AND {A('status')} = %(leased)s{not_submitting}) "
        f"FROM {R} WHERE {R('id')} = %(rater)s" + lock_clause()
    )
    params = {
        "campaign": campaign_id,
        "rater": rater_id,
        "leased": LEASED,
        "now": db_datetime(now),
        "crowd_session": crowd_session_id,
    }
    if submitting is not None:
        params["submitting"] = submitting
    row = fetchone(sql, params)
    return None if row is None else (bool(row[0]), row[1], row[2], row[3])


def fullest_open_level(campaign_id, rater_id, raters_per_item):
    """The highest ``active_count`` among the open items the rater never had, or None."""
    row = fetchone(
        f"SELECT {I('active_count')} FROM {I} WHERE {WITH_ROOM} AND {NEVER_HAD} "
        f"ORDER BY {I('active_count')} DESC LIMIT 1",
        {"campaign": campaign_id, "raters_per_item": raters_per_item, "rater": rater_id},
    )
    return None if row is None else row[0]


def lock_item_in_window(campaign_id, rater_id, level, stride, multiplier, offset, window, skip_locked):
    """Lock an item of the frontmost instance among the first ``window`` open items at ``level`` in the
    campaign's key order (the instances' rating order; ``shuffle_key // stride`` is the instance's
    place), the first in the rater's order; the item's id, or None."""
    sql = (
        f"SELECT {C('id')} FROM (SELECT {I('id')} AS id FROM {I} WHERE {I('campaign')} = %(campaign)s "
        f"AND {I('active_count')} = %(level)s AND {I('needed')} > %(level)s AND {NEVER_HAD} "
        f"ORDER BY {I('shuffle_key')} LIMIT %(window)s) w "
        f"JOIN {C} ON {C('id')} = w.id ORDER BY {C('shuffle_key')} / %(stride)s, {rater_order(C)}, {C('id')} "
        "LIMIT 1" + lock_clause(C, skip_locked)
    )
    row = fetchone(
        sql,
        {
            "campaign": campaign_id,
            "level": level,
            "rater": rater_id,
            "window": window,
            "stride": stride,
            "multiplier": multiplier,
            "offset": offset,
        },
    )
    return None if row is None else row[0]


def lock_any_open_item(campaign_id, rater_id, raters_per_item, skip_locked):
    """Lock the best open item anywhere (fullest first, then the front of the key order); its id or None."""
    row = fetchone(
        f"SELECT {I('id')} FROM {I} WHERE {WITH_ROOM} AND {NEVER_HAD} "
        f"ORDER BY {I('active_count')} DESC, {I('shuffle_key')}, {I('id')} LIMIT 1" + lock_clause(I, skip_locked),
        {"campaign": campaign_id, "raters_per_item": raters_per_item, "rater": rater_id},
    )
    return None if row is None else row[0]


def take_slot(item_id, also_done=False):
    """Count one more lease (and rating, with ``also_done``) on the item if it has room; whether it had."""
    return execute(take_slot_sql(also_done), {"item": item_id}) == 1


LEASE_FIELDS = ("item", "rater", "campaign", "status", "leased_at", "lease_expires_at", "sequence", "crowd_session")
LEASE_VALUES = ", ".join(f"%({field})s" for field in LEASE_FIELDS[1:])


def lease_item(item_id, rater_id, campaign_id, now, expires_at, sequence, crowd_session_id=None):
    """Take a slot on the item and record the rater's lease (in their crowd session, if any): the new
    assignment's id, or None if the item was full."""
    insert = f"INSERT INTO {A.name} ({A.columns(*LEASE_FIELDS)}) "
    params = {
        "item": item_id,
        "rater": rater_id,
        "campaign": campaign_id,
        "status": LEASED,
        "leased_at": db_datetime(now),
        "lease_expires_at": db_datetime(expires_at),
        "sequence": sequence,
        "crowd_session": crowd_session_id,
    }
    if writes_combine():
        row = fetchone(
            f"WITH slot AS ({take_slot_sql()} RETURNING {I.column('id')}) "
            f"{insert}SELECT slot.{I.column('id')}, {LEASE_VALUES} FROM slot RETURNING {A.column('id')}",
            params,
        )
        return None if row is None else row[0]
    if not take_slot(item_id):
        return None
    return fetchone(f"{insert}VALUES (%(item)s, {LEASE_VALUES}) RETURNING {A.column('id')}", params)[0]


# The live lease as the rater screens need it: the assignment, its item's reason and statement.
LIVE_LEASE_FIELDS = ("id", "item", "leased_at", "lease_expires_at", "sequence")


def live_lease_sql():
    """The rater's (crowd session's) unexpired lease, with its item's reason and its statement."""
    return _live_lease_sql(connection.vendor)


@cache
def _live_lease_sql(vendor):
    """Built once per database vendor (the null-safe comparison differs), not on every page."""
    return (
        f"SELECT {', '.join(A(field) for field in LIVE_LEASE_FIELDS)}, {I('text')}, {I('instance')}, "
        f"{S('false_sent')} FROM {A} JOIN {I} ON {I('id')} = {A('item')} JOIN {S} ON {S('id')} = {I('instance')} "
        f"WHERE {A('campaign')} = %(campaign)s AND {A('rater')} = %(rater)s AND {A('status')} = %(leased)s "
        f"AND {A('lease_expires_at')} > %(now)s AND {same_session(A('crowd_session'))} "
        f"ORDER BY {A('sequence')} LIMIT 1"
    )


def live_lease(campaign_id, rater_id, now, crowd_session_id=None):
    """The rater's unexpired lease in the campaign (in the crowd session, if any) as an Assignment
    with its item and statement, or None."""
    row = fetchone(
        live_lease_sql(),
        {
            "campaign": campaign_id,
            "rater": rater_id,
            "leased": LEASED,
            "now": db_datetime(now),
            "crowd_session": crowd_session_id,
        },
    )
    return _lease_from_row(campaign_id, rater_id, row, crowd_session_id)


def _lease_from_row(campaign_id, rater_id, row, crowd_session_id=None):
    if row is None or row[0] is None:
        return None
    assignment_id, item_id, leased_at, expires_at, sequence, text, instance_id, false_sent = row
    assignment = from_row(
        Assignment,
        (
            "id",
            "item",
            "rater",
            "campaign",
            "status",
            "leased_at",
            "lease_expires_at",
            "completed_at",
            "sequence",
            "crowd_session",
        ),
        (
            assignment_id,
            item_id,
            rater_id,
            campaign_id,
            LEASED,
            aware(leased_at),
            aware(expires_at),
            None,
            sequence,
            crowd_session_id,
        ),
    )
    # Only what a rater may see is read; any other field of the two loads on access.
    item = from_row(Item, ("id", "instance", "text"), (item_id, instance_id, text))
    item.instance = from_row(Instance, ("id", "false_sent"), (instance_id, false_sent))
    assignment.item = item
    return assignment


# --- submitting ----------------------------------------------------------------------------


def lock_assignment(assignment_id, rater_id, campaign_id=None, crowd_session_id=None):
    """Lock the rater's assignment; ``(item_id, campaign_id, status, leased_at, campaign status, needed)`` or None.

    With ``campaign_id``, an assignment of another campaign counts as missing; so does one of
    another crowd session than ``crowd_session_id`` (None: taken outside any crowd session).
    """
    in_campaign = f" AND {A('campaign')} = %(campaign)s" if campaign_id is not None else ""
    params = {"assignment": assignment_id, "rater": rater_id, "crowd_session": crowd_session_id}
    if campaign_id is not None:
        params["campaign"] = campaign_id
    row = fetchone(
        f"SELECT {A('item')}, {A('campaign')}, {A('status')}, {A('leased_at')}, {K('status')}, {I('needed')} "
        f"FROM {A} JOIN {K} ON {K('id')} = {A('campaign')} JOIN {I} ON {I('id')} = {A('item')} "
        f"WHERE {A('id')} = %(assignment)s AND {A('rater')} = %(rater)s{in_campaign} "
        f"AND {same_session(A('crowd_session'))}" + lock_clause(A),
        params,
    )
    if row is None:
        return None
    item_id, campaign_id, status, leased_at, campaign_status, needed = row
    return item_id, campaign_id, status, aware(leased_at), campaign_status, needed


RATING_FIELDS = ("item", "rater", "campaign", "assignment", "score", "seconds", "source", "excluded", "created_at")


def record_rating(assignment_id, item_id, rater_id, campaign_id, score, seconds, now, count=True):
    """Mark the assignment done, count the rating on its item (unless ``count`` is false: the
    caller counted it already) and insert it; the new Rating (no second query to read it back)."""
    values = {
        "item": item_id,
        "rater": rater_id,
        "campaign": campaign_id,
        "assignment": assignment_id,
        "score": score,
        "seconds": seconds,
        "source": Rating.Source.APP,
        "excluded": False,
    }
    params = {**values, "created_at": db_datetime(now), "done": DONE}
    done_count = I.column("done_count")
    count_it = f"UPDATE {I.name} SET {done_count} = {done_count} + 1 WHERE {I.column('id')} = %(item)s"
    finish = (
        f"UPDATE {A.name} SET {A.column('status')} = %(done)s, {A.column('completed_at')} = %(created_at)s "
        f"WHERE {A.column('id')} = %(assignment)s"
    )
    insert = (
        f"INSERT INTO {G.name} ({G.columns(*RATING_FIELDS)}) "
        f"VALUES ({', '.join(f'%({field})s' for field in RATING_FIELDS)}) RETURNING {G.column('id')}"
    )
    writes = [("counted", count_it)] if count else []
    writes.append(("finished", finish))
    if writes_combine():
        steps = ", ".join(f"{name} AS ({statement})" for name, statement in writes)
        rating_id = fetchone(f"WITH {steps} {insert}", params)[0]
    else:
        for _, statement in writes:
            execute(statement, params)
        rating_id = fetchone(insert, params)[0]
    return from_row(Rating, ("id", *RATING_FIELDS), (rating_id, *values.values(), now))


# --- progress ------------------------------------------------------------------------------

# ``(done, held, had_with_room, excluded, items_with_room, imported_with_room)``: ``had_with_room``
# counts the rater's assignments whose item still has room, ``imported_with_room`` their imported
# ratings (no assignment) of items with room that they never leased.
PROGRESS_COLUMNS = (
    "m.done, m.held, m.had_with_room, "
    f"EXISTS (SELECT 1 FROM {E} WHERE {E('campaign')} = %(campaign)s AND {E('rater')} = %(rater)s), "
    f"(SELECT COUNT(*) FROM {I} WHERE {OPEN_SLOTS}), "
    f"(SELECT COUNT(*) FROM {G} JOIN {I} ON {I('id')} = {G('item')} WHERE {G('campaign')} = %(campaign)s "
    f"AND {G('rater')} = %(rater)s AND {G('assignment')} IS NULL AND {I('active_count')} < {I('needed')} "
    f"AND NOT EXISTS (SELECT 1 FROM {H} WHERE {H('item')} = {G('item')} AND {H('rater')} = %(rater)s))"
)
PROGRESS_FROM = (
    f"FROM (SELECT COALESCE(SUM(CASE WHEN {A('status')} = %(done)s THEN 1 ELSE 0 END), 0) AS done, "
    f"COALESCE(SUM(CASE WHEN {A('status')} = %(leased)s THEN 1 ELSE 0 END), 0) AS held, "
    f"COALESCE(SUM(CASE WHEN {I('active_count')} < {I('needed')} THEN 1 ELSE 0 END), 0) AS had_with_room "
    f"FROM {A} JOIN {I} ON {I('id')} = {A('item')} WHERE {A('campaign')} = %(campaign)s AND {A('rater')} = %(rater)s) m"
)
PROGRESS_FIGURES = 6


def _progress_params(campaign_id, rater_id, raters_per_item):
    return {
        "campaign": campaign_id,
        "rater": rater_id,
        "raters_per_item": raters_per_item,
        "done": DONE,
        "leased": LEASED,
    }


def _progress_from_row(row):
    done, held, had_with_room, excluded, with_room, imported = row[:PROGRESS_FIGURES]
    return int(done), int(held), int(had_with_room), bool(excluded), with_room, imported


def progress_counts(campaign_id, rater_id, raters_per_item):
    """The figures of the rater's progress in one statement."""
    return _progress_from_row(
        fetchone(f"SELECT {PROGRESS_COLUMNS} {PROGRESS_FROM}", _progress_params(campaign_id, rater_id, raters_per_item))
    )


def live_lease_and_progress(campaign_id, rater_id, raters_per_item, now, crowd_session_id=None):
    """What the item page shows, in one statement: ``(live lease or None, progress figures)``."""
    row = fetchone(
        f"SELECT l.*, {PROGRESS_COLUMNS} {PROGRESS_FROM} LEFT JOIN ({live_lease_sql()}) l ON 1 = 1",
        {
            **_progress_params(campaign_id, rater_id, raters_per_item),
            "now": db_datetime(now),
            "crowd_session": crowd_session_id,
        },
    )
    lease_columns = len(row) - PROGRESS_FIGURES
    return (
        _lease_from_row(campaign_id, rater_id, row[:lease_columns], crowd_session_id),
        _progress_from_row(row[lease_columns:]),
    )
