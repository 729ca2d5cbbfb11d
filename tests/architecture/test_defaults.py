"""`core/defaults.py` is the one home of every default and limit, and every value in it is used.

Issue 21: a change to a value in `core/defaults.py` once silently did nothing on the campaign path,
because the campaign service, its form and its command kept copies of their own. These tests read
the product's source (with `ast`, so comments and strings never count) and fail when

- a function of a service, view, API module, command, the rater's app or `core` has a literal
  number as a parameter's default (``def build_report(seed=2020)``);
- such a module defines a module- or class-level UPPER_CASE constant that is a literal number or
  a tuple of them (``BULK_BATCH = 1000``);
- an argparse option (``add_argument``) or a form or serializer field has a literal number as its
  ``default``, ``initial``, ``min_value``, ``max_value``, ``max_length`` or ``min_length``;
- a pure module (`evalapp/compute/`, `evalapp/formats/`, `evalapp/metrics/`) has a literal number
  as the default of a statistical parameter (a seed, a number of resamples or permutations, a
  confidence or significance level, a power); its mathematical constants may stay beside it;
- a name defined in `core/defaults.py` is used by no product module.

What is not a default or limit, and so is let through: an HTTP status under its own name
(``BAD_REQUEST = 400``), a ``min_value``/``max_value`` of 0 or 1 (a count's or a share's natural
bound), and the few constants listed in ``NOT_DEFAULTS`` with the reason each is a shape, not a choice.
"""

import ast
from http import HTTPStatus
from pathlib import Path

import pytest

from tests.conftest import REPO

DEFAULTS = REPO / "core" / "defaults.py"
PRODUCT = ("config", "core", "annotators", "evalapp")
PURE = ("evalapp/compute", "evalapp/formats", "evalapp/metrics", "core/item_order.py", "core/problems.py")
# Module constants that are numbers but neither a default nor a limit: changing one is changing the code.
NOT_DEFAULTS = {
    ("core/rating_sql.py", "PROGRESS_FIGURES"): "how many figures the progress statement selects (its shape)",
}
FIELD_KEYWORDS = ("default", "initial", "min_value", "max_value", "max_length", "min_length")
NATURAL_BOUNDS = (0, 1)
STATISTICAL_PARAMETERS = {
    "seed",
    "resamples",
    "n_resamples",
    "bootstrap",
    "permutations",
    "replicates",
    "simulations",
    "confidence",
    "level",
    "alpha",
    "power",
}


def relative(path):
    return path.relative_to(REPO).as_posix()


def product_modules():
    for root in PRODUCT:
        for path in sorted((REPO / root).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def is_pure(path):
    name = relative(path)
    return any(name == pure or name.startswith(pure + "/") for pure in PURE)


def literal_number(node):
    """True for ``3``, ``-0.5``, ``7 * 24 * 60 * 60``, ``2**63`` and tuples of such; False once a name is involved."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return literal_number(node.operand)
    if isinstance(node, ast.BinOp):
        return literal_number(node.left) and literal_number(node.right)
    if isinstance(node, ast.Tuple | ast.List):
        return bool(node.elts) and all(literal_number(element) for element in node.elts)
    return False


def http_status_named(name, node):
    """``BAD_REQUEST = 400``: the HTTP status of that number under its own name is no default."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, int)):
        return False
    try:
        return HTTPStatus(node.value).name == name
    except ValueError:
        return False


def is_field_or_option(call):
    """``parser.add_argument(...)``, ``forms.IntegerField(...)``, ``serializers.FloatField(...)``."""
    func = call.func
    if isinstance(func, ast.Attribute):
        if func.attr == "add_argument":
            return True
        return (
            func.attr.endswith("Field")
            and isinstance(func.value, ast.Name)
            and func.value.id in ("forms", "serializers")
        )
    return False


def signature_defaults(function):
    arguments = function.args
    positional = arguments.posonlyargs + arguments.args
    pairs = list(zip(positional[len(positional) - len(arguments.defaults) :], arguments.defaults))
    pairs += [
        (arg, default) for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults) if default is not None
    ]
    return pairs


def violations(path, source=None):
    """Every literal default or limit of one module: ``file:line: what``."""
    name = relative(path)
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"), filename=name)
    pure = is_pure(path)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            for arg, default in signature_defaults(node):
                if literal_number(default) and (not pure or arg.arg in STATISTICAL_PARAMETERS):
                    function = getattr(node, "name", "lambda")
                    found.append(f"{name}:{default.lineno}: {function}({arg.arg}={ast.unparse(default)})")
        elif isinstance(node, ast.Call) and is_field_or_option(node):
            for keyword in node.keywords:
                if keyword.arg not in FIELD_KEYWORDS or not literal_number(keyword.value):
                    continue
                bound = keyword.arg in ("min_value", "max_value")
                if bound and isinstance(keyword.value, ast.Constant) and keyword.value.value in NATURAL_BOUNDS:
                    continue
                found.append(f"{name}:{keyword.value.lineno}: {keyword.arg}={ast.unparse(keyword.value)}")
    if pure:
        return found
    scopes = [tree, *(node for node in ast.walk(tree) if isinstance(node, ast.ClassDef))]
    for scope in scopes:
        for statement in scope.body:
            if isinstance(statement, ast.Assign):
                targets, value = statement.targets, statement.value
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                targets, value = [statement.target], statement.value
            else:
                continue
            for target in targets:
                if not (isinstance(target, ast.Name) and target.id.isupper() and literal_number(value)):
                    continue
                if http_status_named(target.id, value) or (name, target.id) in NOT_DEFAULTS:
                    continue
                found.append(f"{name}:{statement.lineno}: {target.id} = {ast.unparse(value)}")
    return found


def checked_modules():
    """Every product module but core/defaults.py itself and config/ (the settings, read from the environment)."""
    return [path for path in product_modules() if path != DEFAULTS and path.parts[len(REPO.parts)] != "config"]


def test_no_module_has_a_literal_default_or_limit_of_its_own():
    found = [line for path in checked_modules() for line in violations(path)]
    assert not found, "defaults and limits belong in core/defaults.py:\n" + "\n".join(found)


def test_the_scan_covers_every_interface():
    scanned = {relative(path) for path in checked_modules()}
    for module in (
        "evalapp/services/campaigns.py",
        "evalapp/views/campaigns.py",
        "evalapp/api/serializers.py",
        "evalapp/management/commands/create_campaign.py",
        "annotators/views/rating.py",
        "core/engine.py",
        "evalapp/compute/bootstrap.py",
    ):
        assert module in scanned
    assert not any("/migrations/" in module for module in scanned)


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("evalapp/services/campaigns.py", "def build(seed=2020):\n    pass\n", "build(seed=2020)"),
        ("evalapp/services/campaigns.py", "def build(*, lease=30 * 60):\n    pass\n", "build(lease=30 * 60)"),
        ("evalapp/views/campaigns.py", "BULK_BATCH = 1000\n", "BULK_BATCH = 1000"),
        ("core/engine.py", "BOUND = 2**62\n", "BOUND = 2 ** 62"),
        ("evalapp/views/data.py", "class Form:\n    LIMIT = 5\n", "LIMIT = 5"),
        ("evalapp/api/results.py", "x = serializers.IntegerField(default=1000)\n", "default=1000"),
        ("evalapp/api/results.py", "x = serializers.FloatField(min_value=0.05)\n", "min_value=0.05"),
        ("evalapp/views/campaigns.py", "x = forms.CharField(max_length=100)\n", "max_length=100"),
        ("evalapp/views/campaigns.py", "x = forms.FloatField(initial=0.1)\n", "initial=0.1"),
        ("evalapp/management/commands/export.py", "parser.add_argument('--n', default=0)\n", "default=0"),
        ("evalapp/compute/bootstrap.py", "def f(x, seed=0):\n    pass\n", "f(seed=0)"),
        ("evalapp/compute/correlation.py", "def f(x, confidence=0.95):\n    pass\n", "f(confidence=0.95)"),
    ],
)
def test_a_planted_literal_default_is_found(module, source, expected):
    found = violations(REPO / module, source)
    assert len(found) == 1 and found[0].startswith(f"{module}:") and found[0].endswith(expected), found


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("evalapp/views/common.py", "BAD_REQUEST = 400\nNOT_FOUND = 404\n"),
        ("evalapp/views/common.py", "x = forms.IntegerField(min_value=0, max_value=REQUEST_SEED_BOUND - 1)\n"),
        ("evalapp/views/quality.py", "x = forms.FloatField(min_value=0, max_value=1)\n"),
        ("evalapp/services/campaigns.py", "def f(seed=DEFAULT_SEED, shared=False, name=None):\n    pass\n"),
        ("evalapp/services/sequential.py", "n = min(values, default=0)\n"),
        ("evalapp/compute/official_bleu.py", "MAX_ORDER = 4\n\ndef f(x, sided=2):\n    pass\n"),
        ("core/rating_sql.py", "PROGRESS_FIGURES = 6\n"),
    ],
)
def test_what_is_no_default_passes(module, source):
    assert violations(REPO / module, source) == []


def test_an_http_status_under_another_name_is_a_constant_like_any_other():
    assert violations(REPO / "core/middleware.py", "LIMIT = 400\n") == ["core/middleware.py:1: LIMIT = 400"]


def defined_names():
    tree = ast.parse(DEFAULTS.read_text(encoding="utf-8"))
    names = []
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                names += [node.id for node in ast.walk(target) if isinstance(node, ast.Name)]
        elif isinstance(statement, ast.FunctionDef):
            names.append(statement.name)
    return names


def used_names(paths):
    """Names taken from core.defaults: ``from core.defaults import NAME`` or ``defaults.NAME``.

    A module's own constant of the same name does not count: that copy is what this test is against.
    """
    used = set()
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module_names = set()  # what the module calls core.defaults: ``from core import defaults as _defaults``
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "core.defaults":
                used.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module == "core":
                module_names.update(alias.asname or alias.name for alias in node.names if alias.name == "defaults")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in module_names:
                used.add(node.attr)
    return used


def unused_defaults(paths):
    """Names of core/defaults.py that no module of ``paths`` uses, directly or through another default."""
    defaults_tree = ast.parse(DEFAULTS.read_text(encoding="utf-8"))
    feeds = {}  # a default -> the defaults whose value or body uses it
    for statement in defaults_tree.body:
        if isinstance(statement, ast.Assign | ast.FunctionDef):
            owners = (
                [node.id for target in statement.targets for node in ast.walk(target) if isinstance(node, ast.Name)]
                if isinstance(statement, ast.Assign)
                else [statement.name]
            )
            body = statement.value if isinstance(statement, ast.Assign) else statement
            for node in ast.walk(body):
                if isinstance(node, ast.Name):
                    feeds.setdefault(node.id, set()).update(owners)
    used = used_names(paths)
    reached = set(used)
    changed = True
    while changed:
        changed = False
        for name, owners in feeds.items():
            if name not in reached and owners & reached:
                reached.add(name)
                changed = True
    return [name for name in defined_names() if name not in reached]


def test_every_default_is_used_by_the_product():
    unused = unused_defaults([path for path in product_modules() if path != DEFAULTS])
    assert not unused, f"core/defaults.py defines values no product module uses: {', '.join(unused)}"


def test_an_unused_default_is_found(tmp_path):
    user = tmp_path / "user.py"
    user.write_text("from core.defaults import DEFAULT_RESAMPLES\n", encoding="utf-8")
    unused = unused_defaults([user])
    assert "DEFAULT_RESAMPLES" not in unused and "MAX_REQUEST_RESAMPLES" in unused
    assert "NAME_MAX_CHARS" in unused


def test_a_copy_of_a_default_is_no_use_of_it(tmp_path):
    user = tmp_path / "user.py"
    user.write_text("PAPER_SAMPLE_SIZE = 100\nprint(PAPER_SAMPLE_SIZE)\n", encoding="utf-8")
    assert "PAPER_SAMPLE_SIZE" in unused_defaults([user])


def test_a_default_used_through_the_module_counts(tmp_path):
    user = tmp_path / "user.py"
    user.write_text("from core import defaults as _defaults\nRATE = _defaults.LOGIN_RATE\n", encoding="utf-8")
    assert "LOGIN_RATE" not in unused_defaults([user])


def test_a_default_used_only_inside_defaults_counts_through_its_user(tmp_path):
    user = tmp_path / "user.py"
    user.write_text("from core.defaults import MAX_ID\n", encoding="utf-8")
    assert "MAX_ID_DIGITS" not in unused_defaults([user])


def test_defaults_is_pure_python():
    tree = ast.parse(DEFAULTS.read_text(encoding="utf-8"))
    imported = [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]
    assert imported == [], "core/defaults.py imports nothing, so every layer (the pure ones too) may import it"


def test_scan_reads_real_files():
    assert Path(DEFAULTS).is_file()
