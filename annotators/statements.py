"""The assignment engine's per-rating statements, written once as SQL.

A rater makes two requests per rating, and building these statements through the ORM
(subqueries, annotations, row locks) cost more CPU than all the rest of the request:
``bench/rater_profile.py`` measured about 0.8 ms to compile the item pick alone against
0.05 ms to send it as text. So the statements on that path are plain SQL, the same on
SQLite and PostgreSQL; only the row-lock clause differs (SQLite has none: its transactions
start IMMEDIATE and writers queue instead). The rules they serve (which item, which submit
counts) are in :mod:`annotators.engine`; everything off the rating path stays in the ORM.

Table names come from the models; values go in as parameters, datetimes adapted as the ORM
adapts them, and datetimes read back are made aware as the ORM makes them.
"""
from datetime import timezone as dt_timezone

from django.db import connection
from django.utils import timezone

from annotators.models import Assignment, Rater, RaterExclusion, Rating
from evalapp.compute.campaign_plan import SHUFFLE_MODULUS
from evalapp.models import Campaign, Instance, Item

ASSIGNMENT = Assignment._meta.db_table
RATER = Rater._meta.db_table
EXCLUSION = RaterExclusion._meta.db_table
RATING = Rating._meta.db_table
ITEM = Item._meta.db_table
INSTANCE = Instance._meta.db_table
CAMPAIGN = Campaign._meta.db_table

LEASED = Assignment.Status.LEASED
DONE = Assignment.Status.DONE

# The items the rater never had: neither an assignment (any status) nor an imported rating.
NEVER_HAD = (f"NOT EXISTS (SELECT 1 FROM {ASSIGNMENT} h WHERE h.item_id = i.id AND h.rater_id = %s) "
             f"AND NOT EXISTS (SELECT 1 FROM {RATING} g WHERE g.item_id = i.id AND g.rater_id = %s)")
# ``active_count < M`` repeats ``active_count < needed`` as a constant bound, so that the
# database reads only the open part of the item index (``item_pick_idx``).
WITH_ROOM = "i.campaign_id = %s AND i.active_count < i.needed AND i.active_count < %s"
# The same for counting: every item needs the campaign's M (``Item.needed`` is set so when the
# campaign is made), and without the per-row ``needed`` the count reads the index alone.
OPEN_SLOTS = "i.campaign_id = %s AND i.active_count < %s"


def rater_order(table):
    """The rater's permutation of the item keys (see ``rater_order_parameters``); two parameters."""
    return f"(CAST({table}.shuffle_key AS BIGINT) * %s + %s) %% {SHUFFLE_MODULUS}"


def take_slot_sql(also_done=False):
    """Count one more lease (and rating, with ``also_done``) on an item that has room; one parameter, its id."""
    done = ", done_count = done_count + 1" if also_done else ""
    return f"UPDATE {ITEM} SET active_count = active_count + 1{done} WHERE id = %s AND active_count < needed"


def writes_combine():
    """Whether several writes go in one statement (``WITH ... UPDATE``): PostgreSQL only.

    A round trip to the server costs it about as much CPU as a simple write itself, so on
    PostgreSQL the writes of one step are sent as one statement; SQLite runs in-process and
    has no data-modifying ``WITH``.
    """
    return connection.vendor == "postgresql"


def lock_clause(of=None, skip_locked=False):
    """``FOR NO KEY UPDATE [OF t] [SKIP LOCKED]`` where the database has row locks; else nothing."""
    if not connection.features.has_select_for_update:
        return ""
    return " FOR NO KEY UPDATE" + (f" OF {of}" if of else "") + (" SKIP LOCKED" if skip_locked else "")


def db_datetime(value):
    return connection.ops.adapt_datetimefield_value(value)


def aware(value):
    """A datetime read by raw SQL, as the ORM would return it (SQLite gives naive UTC)."""
    if value is None or timezone.is_aware(value):
        return value
    return timezone.make_aware(value, dt_timezone.utc)


def fetchone(sql, params):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def execute(sql, params):
    """Run a write; the number of rows it changed."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def open_campaign(campaign_id):
    """The campaign if it is open, else None: both rater requests start with it."""
    query = Campaign.objects.raw(f"SELECT * FROM {CAMPAIGN} WHERE id = %s AND status = %s",
                                 [campaign_id, Campaign.Status.OPEN])
    return next(iter(query), None)


# --- leasing -------------------------------------------------------------------------------

def lock_rater_state(rater_id, campaign_id, now, submitting=None):
    """Lock the rater's row and read ``(excluded, live lease id, assignments held)`` in one statement.

    ``submitting``: an assignment being submitted in the same transaction, which is not the
    live lease to resume.
    """
    live_filter = " AND a.id <> %s" if submitting is not None else ""
    sql = (
        f"SELECT EXISTS (SELECT 1 FROM {EXCLUSION} e WHERE e.campaign_id = %s AND e.rater_id = r.id), "
        f"(SELECT a.id FROM {ASSIGNMENT} a WHERE a.campaign_id = %s AND a.rater_id = r.id AND a.status = %s "
        f"AND a.lease_expires_at > %s{live_filter} ORDER BY a.sequence LIMIT 1), "
        f"(SELECT COUNT(*) FROM {ASSIGNMENT} a WHERE a.campaign_id = %s AND a.rater_id = r.id) "
        f"FROM {RATER} r WHERE r.id = %s" + lock_clause()
    )
    params = [campaign_id, campaign_id, LEASED, db_datetime(now)]
    if submitting is not None:
        params.append(submitting)
    row = fetchone(sql, [*params, campaign_id, rater_id])
    return None if row is None else (bool(row[0]), row[1], row[2])


def fullest_open_level(campaign_id, rater_id, raters_per_item):
    """The highest ``active_count`` among the open items the rater never had, or None."""
    row = fetchone(f"SELECT i.active_count FROM {ITEM} i WHERE {WITH_ROOM} AND {NEVER_HAD} "
                   "ORDER BY i.active_count DESC LIMIT 1", [campaign_id, raters_per_item, rater_id, rater_id])
    return None if row is None else row[0]


def lock_item_in_window(campaign_id, rater_id, level, start, wrapped, multiplier, window, skip_locked):
    """Lock the first item, in the rater's order, of the next ``window`` open items at ``level``.

    The window runs in key order from the rater's ``start`` key up (``wrapped`` false) or from
    the lowest key up to it (``wrapped`` true); the item's id, or None.
    """
    keys = "i.shuffle_key < %s" if wrapped else "i.shuffle_key >= %s"
    sql = (
        f"SELECT c.id FROM (SELECT i.id FROM {ITEM} i WHERE i.campaign_id = %s AND i.active_count = %s "
        f"AND i.needed > %s AND {keys} AND {NEVER_HAD} ORDER BY i.shuffle_key LIMIT %s) w "
        f"JOIN {ITEM} c ON c.id = w.id ORDER BY {rater_order('c')}, c.id LIMIT 1" + lock_clause("c", skip_locked)
    )
    row = fetchone(sql, [campaign_id, level, level, start, rater_id, rater_id, window, multiplier, start])
    return None if row is None else row[0]


def lock_any_open_item(campaign_id, rater_id, raters_per_item, multiplier, offset, skip_locked):
    """Lock the rater's best open item anywhere (fullest first, then their order); its id or None."""
    row = fetchone(f"SELECT i.id FROM {ITEM} i WHERE {WITH_ROOM} AND {NEVER_HAD} "
                   f"ORDER BY i.active_count DESC, {rater_order('i')}, i.id LIMIT 1" + lock_clause("i", skip_locked),
                   [campaign_id, raters_per_item, rater_id, rater_id, multiplier, offset])
    return None if row is None else row[0]


def take_slot(item_id, also_done=False):
    """Count one more lease (and rating, with ``also_done``) on the item if it has room; whether it had."""
    return execute(take_slot_sql(also_done), [item_id]) == 1


def lease_item(item_id, rater_id, campaign_id, now, expires_at, sequence):
    """Take a slot on the item and record the rater's lease: the new assignment's id, or None if the item was full."""
    insert = (f"INSERT INTO {ASSIGNMENT} "
              "(item_id, rater_id, campaign_id, status, leased_at, lease_expires_at, sequence) ")
    values = [rater_id, campaign_id, LEASED, db_datetime(now), db_datetime(expires_at), sequence]
    if writes_combine():
        row = fetchone(f"WITH slot AS ({take_slot_sql()} RETURNING id) "
                       f"{insert}SELECT slot.id, %s, %s, %s, %s, %s, %s FROM slot RETURNING id", [item_id, *values])
        return None if row is None else row[0]
    if not take_slot(item_id):
        return None
    return fetchone(f"{insert}VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id", [item_id, *values])[0]


LIVE_LEASE = (
    f"SELECT a.id, a.item_id, a.leased_at, a.lease_expires_at, a.sequence, i.text, i.instance_id, s.false_sent "
    f"FROM {ASSIGNMENT} a JOIN {ITEM} i ON i.id = a.item_id JOIN {INSTANCE} s ON s.id = i.instance_id "
    "WHERE a.campaign_id = %s AND a.rater_id = %s AND a.status = %s AND a.lease_expires_at > %s "
    "ORDER BY a.sequence LIMIT 1"
)


def live_lease(campaign_id, rater_id, now):
    """The rater's unexpired lease in the campaign as an Assignment with its item and statement, or None."""
    row = fetchone(LIVE_LEASE, [campaign_id, rater_id, LEASED, db_datetime(now)])
    return _lease_from_row(campaign_id, rater_id, row)


def _lease_from_row(campaign_id, rater_id, row):
    if row is None or row[0] is None:
        return None
    assignment_id, item_id, leased_at, expires_at, sequence, text, instance_id, false_sent = row
    assignment = Assignment.from_db(
        connection.alias, ["id", "item_id", "rater_id", "campaign_id", "status", "leased_at", "lease_expires_at",
                           "completed_at", "sequence"],
        [assignment_id, item_id, rater_id, campaign_id, LEASED, aware(leased_at), aware(expires_at), None, sequence])
    # Only what a rater may see is read; any other field of the two loads on access.
    item = Item.from_db(connection.alias, ["id", "instance_id", "text"], [item_id, instance_id, text])
    item.instance = Instance.from_db(connection.alias, ["id", "false_sent"], [instance_id, false_sent])
    assignment.item = item
    return assignment


# --- submitting ----------------------------------------------------------------------------

def lock_assignment(assignment_id, rater_id, campaign_id=None):
    """Lock the rater's assignment; ``(item_id, campaign_id, status, leased_at, campaign status, needed)`` or None.

    With ``campaign_id``, an assignment of another campaign counts as missing.
    """
    in_campaign = " AND a.campaign_id = %s" if campaign_id is not None else ""
    params = [assignment_id, rater_id] + ([campaign_id] if campaign_id is not None else [])
    row = fetchone(
        f"SELECT a.item_id, a.campaign_id, a.status, a.leased_at, c.status, i.needed FROM {ASSIGNMENT} a "
        f"JOIN {CAMPAIGN} c ON c.id = a.campaign_id JOIN {ITEM} i ON i.id = a.item_id "
        f"WHERE a.id = %s AND a.rater_id = %s{in_campaign}" + lock_clause("a"), params)
    if row is None:
        return None
    item_id, campaign_id, status, leased_at, campaign_status, needed = row
    return item_id, campaign_id, status, aware(leased_at), campaign_status, needed


def record_rating(assignment_id, item_id, rater_id, campaign_id, score, seconds, now, count=True):
    """Mark the assignment done, count the rating on its item (unless ``count`` is false: the
    caller counted it already) and insert it; the new Rating (no second query to read it back)."""
    values = [item_id, rater_id, campaign_id, assignment_id, score, seconds, Rating.Source.APP, False]
    stored = [*values, db_datetime(now)]
    count_it = (f"UPDATE {ITEM} SET done_count = done_count + 1 WHERE id = %s", [item_id])
    finish = (f"UPDATE {ASSIGNMENT} SET status = %s, completed_at = %s WHERE id = %s",
              [DONE, db_datetime(now), assignment_id])
    insert = (f"INSERT INTO {RATING} (item_id, rater_id, campaign_id, assignment_id, score, seconds, source, excluded, "
              "created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id", stored)
    writes = [count_it, finish, insert] if count else [finish, insert]
    if writes_combine():
        names = ("counted", "finished") if count else ("finished",)
        steps = ", ".join(f"{name} AS ({statement})" for name, (statement, _) in zip(names, writes))
        rating_id = fetchone(f"WITH {steps} {insert[0]}", [param for _, params in writes for param in params])[0]
    else:
        for statement, params in writes[:-1]:
            execute(statement, params)
        rating_id = fetchone(*insert)[0]
    return Rating.from_db(connection.alias, ["id", "item_id", "rater_id", "campaign_id", "assignment_id", "score",
                                             "seconds", "source", "excluded", "created_at"],
                          [rating_id, *values, now])


# --- progress ------------------------------------------------------------------------------

# ``(done, held, had_with_room, excluded, items_with_room, imported_with_room)``: ``had_with_room``
# counts the rater's assignments whose item still has room, ``imported_with_room`` their imported
# ratings (no assignment) of items with room that they never leased.
PROGRESS_COLUMNS = (
    "m.done, m.held, m.had_with_room, "
    f"EXISTS (SELECT 1 FROM {EXCLUSION} e WHERE e.campaign_id = %s AND e.rater_id = %s), "
    f"(SELECT COUNT(*) FROM {ITEM} i WHERE {OPEN_SLOTS}), "
    f"(SELECT COUNT(*) FROM {RATING} g JOIN {ITEM} i ON i.id = g.item_id WHERE g.campaign_id = %s "
    "AND g.rater_id = %s AND g.assignment_id IS NULL AND i.active_count < i.needed "
    f"AND NOT EXISTS (SELECT 1 FROM {ASSIGNMENT} h WHERE h.item_id = g.item_id AND h.rater_id = %s))"
)
PROGRESS_FROM = (
    "FROM (SELECT COALESCE(SUM(CASE WHEN a.status = %s THEN 1 ELSE 0 END), 0) AS done, "
    "COALESCE(SUM(CASE WHEN a.status = %s THEN 1 ELSE 0 END), 0) AS held, "
    "COALESCE(SUM(CASE WHEN i.active_count < i.needed THEN 1 ELSE 0 END), 0) AS had_with_room "
    f"FROM {ASSIGNMENT} a JOIN {ITEM} i ON i.id = a.item_id WHERE a.campaign_id = %s AND a.rater_id = %s) m"
)
PROGRESS_FIGURES = 6


def _progress_params(campaign_id, rater_id, raters_per_item):
    return [campaign_id, rater_id, campaign_id, raters_per_item, campaign_id, rater_id, rater_id, DONE, LEASED,
            campaign_id, rater_id]


def _progress_from_row(row):
    done, held, had_with_room, excluded, with_room, imported = row[:PROGRESS_FIGURES]
    return int(done), int(held), int(had_with_room), bool(excluded), with_room, imported


def progress_counts(campaign_id, rater_id, raters_per_item):
    """The figures of the rater's progress in one statement."""
    return _progress_from_row(fetchone(f"SELECT {PROGRESS_COLUMNS} {PROGRESS_FROM}",
                                       _progress_params(campaign_id, rater_id, raters_per_item)))


def live_lease_and_progress(campaign_id, rater_id, raters_per_item, now):
    """What the item page shows, in one statement: ``(live lease or None, progress figures)``."""
    row = fetchone(
        f"SELECT l.*, {PROGRESS_COLUMNS} {PROGRESS_FROM} LEFT JOIN ({LIVE_LEASE}) l ON 1 = 1",
        [*_progress_params(campaign_id, rater_id, raters_per_item), campaign_id, rater_id, LEASED, db_datetime(now)])
    lease_columns = len(row) - PROGRESS_FIGURES
    return _lease_from_row(campaign_id, rater_id, row[:lease_columns]), _progress_from_row(row[lease_columns:])
