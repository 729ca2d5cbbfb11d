"""No import cycle anywhere in the product (issue 21, item 4): ``config``, ``core``, ``annotators`` and
``evalapp`` form a graph with no cycle, counting every import, function-level ones included.

``lint-imports`` holds the layers, but a cycle inside one layer (two services) or through a function-level
import slips past it; this test builds the whole module graph with grimp (which import-linter ships and
which reads every import statement, at any depth) and looks for strongly connected components.
"""

from __future__ import annotations

import textwrap

import grimp

PRODUCT = ("config", "core", "annotators", "evalapp")


def import_cycles(*packages: str) -> list[list[str]]:
    """Every set of modules that import one another in a ring (strongly connected components of more
    than one module, and modules that import themselves), each as a sorted list of module names."""
    graph = grimp.build_graph(*packages, cache_dir=None)
    edges = {module: sorted(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    # Tarjan's algorithm, iterative (the graph has hundreds of modules: no recursion limit to meet).
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(edges.get(successor, ()))))
                    break
                if successor in on_stack:
                    low[module] = min(low[module], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == module:
                            break
                    if len(component) > 1 or module in edges.get(module, ()):
                        cycles.append(sorted(component))
    return sorted(cycles)


def test_the_product_has_no_import_cycle():
    assert import_cycles(*PRODUCT) == []


def _package(root, name, modules):
    package = root / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    for module, source in modules.items():
        (package / f"{module}.py").write_text(textwrap.dedent(source))


def test_a_function_level_cycle_is_found(tmp_path, monkeypatch):
    """The planted ring of evalapp/tasks.py and services/metric_runs.py before it was broken."""
    _package(
        tmp_path,
        "planted_cycle",
        {
            "tasks": "from planted_cycle.runs import execute\n",
            "runs": """
                def execute():
                    pass

                def start():
                    from planted_cycle.tasks import run
            """,
            "alone": "import planted_cycle.runs\n",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("planted_cycle") == [["planted_cycle.runs", "planted_cycle.tasks"]]


def test_a_longer_ring_across_packages_is_found(tmp_path, monkeypatch):
    _package(tmp_path, "ring_a", {"one": "from ring_b import two\n"})
    _package(tmp_path, "ring_b", {"two": "import ring_c.three\n"})
    _package(tmp_path, "ring_c", {"three": "def late():\n    import ring_a.one\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("ring_a", "ring_b", "ring_c") == [["ring_a.one", "ring_b.two", "ring_c.three"]]


def test_a_graph_without_a_ring_passes(tmp_path, monkeypatch):
    _package(tmp_path, "no_ring", {"low": "", "mid": "from no_ring import low\n", "top": "import no_ring.mid\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("no_ring") == []
