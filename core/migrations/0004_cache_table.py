"""The shared cache's table (``CACHES`` in config/settings.py): the API throttles count there, for every process.

Made here so that every prepared database has it, as ``manage.py createcachetable`` would make it.
"""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0003_team_marker_labels"),
    ]

    operations = [
        migrations.RunPython(create_cache_table, migrations.RunPython.noop),
    ]
