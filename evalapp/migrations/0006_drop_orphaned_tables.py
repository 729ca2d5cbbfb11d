"""Drop the tables this app made for models it no longer has.

After the shared models moved to the core app and their tables were renamed, a table whose
name starts with ``evalapp_`` and that no model (or many-to-many table) of any app claims is
a leftover of a model deleted from this app: it holds nothing the product reads. Databases
that never had such a table are unchanged.
"""

from django.db import migrations

PREFIX = "evalapp_"


def claimed_tables(apps):
    tables = set()
    for model in apps.get_models(include_auto_created=True):
        tables.add(model._meta.db_table)
    return tables


def drop_orphaned_tables(apps, schema_editor):
    connection = schema_editor.connection
    claimed = claimed_tables(apps)
    with connection.cursor() as cursor:
        existing = connection.introspection.table_names(cursor)
    for table in sorted(existing):
        if table.startswith(PREFIX) and table not in claimed:
            schema_editor.execute(f"DROP TABLE {schema_editor.quote_name(table)}")


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0002_table_names"),
        ("evalapp", "0005_models_moved_to_core"),
    ]

    operations = [
        migrations.RunPython(drop_orphaned_tables, migrations.RunPython.noop),
    ]
