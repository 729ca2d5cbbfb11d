"""Commands call services, never each other (issue 21, item 5): no management command imports another
command's module or runs one through ``call_command``, and the commands package holds commands only
(what they share of the command line is ``evalapp/management/cli.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[2]
COMMANDS = "evalapp.management.commands"
PRODUCT = ("config", "core", "annotators", "evalapp")


def commands_importing_commands(graph: grimp.ImportGraph) -> set[tuple[str, str]]:
    """(importer, imported) pairs of two modules of the commands package, function-level imports included."""
    modules = {module for module in graph.modules if module.startswith(COMMANDS + ".")}
    return {
        (module, imported)
        for module in modules
        for imported in graph.find_modules_directly_imported_by(module)
        if imported.startswith(COMMANDS + ".") or imported == COMMANDS
    }


def calls_a_command(source: str) -> bool:
    """Whether the code imports or calls Django's ``call_command`` (one command running another)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and any(alias.name == "call_command" for alias in node.names):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "call_command":
            return True
    return False


def defines_a_command(source: str) -> bool:
    return any(isinstance(node, ast.ClassDef) and node.name == "Command" for node in ast.parse(source).body)


def _product_sources():
    for app in PRODUCT:
        for module in (REPO / app).rglob("*.py"):
            if "migrations" not in module.parts:
                yield module.relative_to(REPO), module.read_text(encoding="utf-8")


def test_no_command_imports_another():
    assert commands_importing_commands(grimp.build_graph(*PRODUCT, cache_dir=None)) == set()


def test_no_product_code_runs_a_command():
    assert [str(path) for path, source in _product_sources() if calls_a_command(source)] == []


def test_the_commands_package_holds_commands_only():
    folder = REPO / "evalapp" / "management" / "commands"
    helpers = [
        module.name
        for module in folder.glob("*.py")
        if module.name != "__init__.py" and not defines_a_command(module.read_text(encoding="utf-8"))
    ]
    assert helpers == []


def test_the_checks_see_a_planted_violation(tmp_path, monkeypatch):
    """A command importing a helper of the commands package (as ``_campaign_option.py`` was), and one
    that runs another through ``call_command`` at function level."""
    package = tmp_path / "planted" / "management" / "commands"
    package.mkdir(parents=True)
    for folder in (tmp_path / "planted", tmp_path / "planted" / "management", package):
        (folder / "__init__.py").write_text("")
    (package / "_shared.py").write_text("def campaign_named(name):\n    return name\n")
    (package / "export.py").write_text(
        "def handle():\n    from planted.management.commands._shared import campaign_named\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(f"{__name__}.COMMANDS", "planted.management.commands")
    found = commands_importing_commands(grimp.build_graph("planted", cache_dir=None))
    assert found == {("planted.management.commands.export", "planted.management.commands._shared")}
    assert calls_a_command("def handle():\n    from django.core.management import call_command\n")
    assert calls_a_command("from django.core import management\nmanagement.call_command('x')\n")
    assert not calls_a_command("from django.core.management.base import BaseCommand\n")
    assert not defines_a_command((package / "_shared.py").read_text())
