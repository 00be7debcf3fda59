"""The packages import downward only, and say so in a test.

Layers, lowest first (DESIGN.md's data flow; docs/extending.md):

    spec  <-  observed (what a run observed, as plain records)  <-  impl | checkers  <-
    campaign's infrastructure (errors, formats, outputs, spark_session)  <-  the judge
    (campaign.judge)  <-  the run layer (campaign.run, store, report) and operator pre-flight
    (campaign.operator)  <-  strategies  <-
    the run kinds (campaign.kinds)  <-  shrinking, engines, campaigns, the mutant matrix  <-
    the command line

A module imports modules of its own layer or lower ones; impl and checkers are peers that do
not import each other (a checker must not share impl's bookkeeping: what both need is in
observed/). Every import counts: at module level, inside functions, under `TYPE_CHECKING`, and
relative ones (`from ..kinds import x`, resolved against the importing module). On top of the
layers:

- no module imports another module's `_private` name;
- imports inside functions only for the heavy optional dependencies (pyspark, z3, matplotlib),
  each with a comment saying so (a `#` comment on its line or the line above, not a `#` inside
  a string), so that a lazy import cannot hide a cycle or a layer;
- `importlib` and `__import__` nowhere but in campaign/cli.py, whose command registry loads a
  command's module only when that command runs (so `tcmcheck placements` does not pay for Z3);
- no import cycle between modules.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("spec", "observed", "impl", "checkers", "strategies", "campaign")

LAYERS: tuple[tuple[str, ...], ...] = (
    ("spec",),
    ("observed",),
    ("impl",),
    ("checkers",),
    ("campaign.errors", "campaign.formats", "campaign.outputs", "campaign.spark_session"),
    ("campaign.judge",),
    ("campaign.run", "campaign.store", "campaign.report", "campaign.operator"),
    ("strategies",),
    ("campaign.kinds",),
    ("campaign.shrink", "campaign.engines", "campaign.fuzz", "campaign.mutants"),
    ("campaign.commands", "campaign.cli", "campaign.__main__", "campaign.spark_submit", "campaign"),
)
PEERS = {2: 3, 3: 2}
"""Layer indexes that share a rank: impl (2) and checkers (3) may not import each other."""
RANK = {0: 0, 1: 1, 2: 2, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 7, 9: 8, 10: 9}

OPTIONAL = ("pyspark", "z3", "matplotlib")
"""Heavy optional dependencies: the only imports allowed inside a function."""
IMPORTLIB_ALLOWED = ("campaign/cli.py",)


@attrs.frozen
class Import:
    importer: str
    path: str
    line: int
    target: str
    names: tuple[str, ...]
    in_function: bool
    commented: bool


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _walk(node: ast.AST, in_function: bool = False) -> Iterator[tuple[ast.AST, bool]]:
    for child in ast.iter_child_nodes(node):
        yield child, in_function
        inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        yield from _walk(child, inner)


def _comment_lines(text: str) -> set[int]:
    """The lines holding a `#` comment (tokens, so a `#` inside a string is none)."""
    return {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(text).readline)
            if tok.type == tokenize.COMMENT}


def _absolute(name: str, path: Path, level: int, module: str | None) -> str:
    """The module a relative import names, resolved against the importing module (`name`; a
    package's `__init__` is its own package)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    base = package[:len(package) - (level - 1)] if level > 1 else package
    return ".".join([*base, *([module] if module else [])])


def imports(name: str, path: Path, rel: str | None = None) -> list[Import]:
    text = path.read_text()
    comments = _comment_lines(text)
    tree = ast.parse(text)
    out = []
    for node, in_function in _walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module if node.level == 0 else _absolute(name, path, node.level, node.module)
            if not module:
                continue
            targets = [(module, tuple(a.name for a in node.names))]
        elif isinstance(node, ast.Import):
            targets = [(a.name, ()) for a in node.names]
        else:
            continue
        commented = node.lineno in comments or (node.lineno - 1) in comments
        out += [Import(importer=name, path=rel or str(path.relative_to(ROOT)), line=node.lineno, target=t, names=ns, in_function=in_function,
                       commented=commented) for t, ns in targets]
    return out


def all_imports() -> list[Import]:
    return [i for name, path in sources().items() for i in imports(name, path)]


def layer_of(module: str) -> int | None:
    best: tuple[int, int] | None = None
    for index, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and (best is None or len(p) > best[1]):
                best = (index, len(p))
    return None if best is None else best[0]


def resolve(target: str, names: tuple[str, ...], modules: dict[str, Path]) -> list[str]:
    """The project modules an import loads: `from pkg import mod` loads pkg.mod."""
    if target.split(".")[0] not in PACKAGES:
        return []
    subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules]
    # `from pkg import submodule` needs the submodule, not the package's names
    whole = [target] if target in modules and not (names and len(subs) == len(names)) else []
    return whole + subs


def against_the_layers(found: list[Import], modules: dict[str, Path]) -> list[str]:
    bad = []
    for i in found:
        mine = layer_of(i.importer)
        assert mine is not None, f"{i.importer} is in no layer: add it to LAYERS"
        for target in resolve(i.target, i.names, modules):
            theirs = layer_of(target)
            assert theirs is not None, f"{target} is in no layer"
            if RANK[theirs] > RANK[mine] or PEERS.get(mine) == theirs:
                bad.append(f"{i.path}:{i.line}: {i.importer} ({mine}) imports {target} ({theirs})")
    return bad


def private_names(found: list[Import], modules: dict[str, Path]) -> list[str]:
    return [f"{i.path}:{i.line}: {i.importer} imports {i.target}.{n}" for i in found
            if i.target.split(".")[0] in PACKAGES and i.target != i.importer
            for n in i.names if n.startswith("_") and not n.startswith("__")]


def lazy_imports(found: list[Import]) -> list[str]:
    return [f"{i.path}:{i.line}: {i.importer} imports {i.target} inside a function"
            + ("" if i.commented else " (without a comment)") for i in found if i.in_function
            and not (i.target.split(".")[0] in OPTIONAL and i.commented)]


def dynamic_imports(modules: dict[str, Path]) -> list[str]:
    out = []
    for name, path in modules.items():
        rel = str(path.relative_to(ROOT))
        if rel in IMPORTLIB_ALLOWED:
            continue
        for n, line in enumerate(path.read_text().splitlines(), start=1):
            code = line.split("#", 1)[0]
            if "importlib" in code or "__import__(" in code:
                out.append(f"{rel}:{n}: {name} loads a module by name")
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def graph_of(found: list[Import], modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for i in found:
        for t in resolve(i.target, i.names, modules):
            if t != i.importer and not i.importer.startswith(t + "."):  # a package's own __init__
                graph[i.importer].add(t)
    return graph


# ---------------------------------------------------------------- the project


def test_every_import_goes_down_the_layers() -> None:
    modules = sources()
    assert against_the_layers(all_imports(), modules) == []


def test_no_module_imports_another_modules_private_names() -> None:
    modules = sources()
    assert private_names(all_imports(), modules) == []


def test_imports_inside_functions_are_only_for_heavy_optional_dependencies() -> None:
    assert lazy_imports(all_imports()) == []


def test_no_module_is_loaded_by_name_but_the_command_registry() -> None:
    assert dynamic_imports(sources()) == []


def test_there_is_no_import_cycle() -> None:
    modules = sources()
    assert cycles(graph_of(all_imports(), modules)) == []


# ---------------------------------------------------------------- the test sees a planted break


def _planted(tmp_path: Path, code: str) -> tuple[list[Import], dict[str, Path]]:
    path = tmp_path / "planted.py"
    path.write_text(code)
    modules = sources()
    found = imports("campaign.run.planted", path, "planted.py")
    return found, modules


def test_a_planted_upward_import_is_refused(tmp_path: Path) -> None:
    """The run layer importing a run kind (a layer above it) is against the layers."""
    found, modules = _planted(tmp_path, "from campaign.kinds import run_one\n")
    assert against_the_layers(found, modules) == [
        "planted.py:1: campaign.run.planted (6) imports campaign.kinds (8)"]


def test_a_planted_relative_upward_import_is_refused(tmp_path: Path) -> None:
    """`from ..kinds import run_one` in campaign/run/ is campaign.kinds too."""
    found, modules = _planted(tmp_path, "from ..kinds import run_one\nfrom . import record\n")
    assert [i.target for i in found] == ["campaign.kinds", "campaign.run"]
    assert against_the_layers(found, modules) == [
        "planted.py:1: campaign.run.planted (6) imports campaign.kinds (8)"]


def test_the_judge_may_not_import_the_run_layer(tmp_path: Path) -> None:
    path = tmp_path / "planted.py"
    path.write_text("from campaign.run.record import RunSpec\n")
    found = imports("campaign.judge.planted", path, "planted.py")
    assert against_the_layers(found, sources()) == [
        "planted.py:1: campaign.judge.planted (5) imports campaign.run.record (6)"]


def test_observed_may_not_import_impl(tmp_path: Path) -> None:
    path = tmp_path / "planted.py"
    path.write_text("from impl.history import History\n")
    found = imports("observed.planted", path, "planted.py")
    assert against_the_layers(found, sources()) == [
        "planted.py:1: observed.planted (1) imports impl.history (2)"]


def test_a_planted_private_import_is_refused(tmp_path: Path) -> None:
    found, modules = _planted(tmp_path, "from campaign.judge.checks.holdings import _private\n")
    assert private_names(found, modules) == [
        "planted.py:1: campaign.run.planted imports campaign.judge.checks.holdings._private"]


def test_a_planted_lazy_import_is_refused_and_an_optional_one_with_a_comment_is_not(tmp_path: Path) -> None:
    found, _ = _planted(tmp_path, "def f():\n    from campaign.run import record\n\n\n"
                                  "def g():\n    import matplotlib  # optional, heavy\n\n\n"
                                  "def h():\n    import z3\n\n\n"
                                  "def i():\n    import pyspark; s = '#'\n")
    assert lazy_imports(found) == [
        "planted.py:2: campaign.run.planted imports campaign.run inside a function (without a comment)",
        "planted.py:10: campaign.run.planted imports z3 inside a function (without a comment)",
        "planted.py:14: campaign.run.planted imports pyspark inside a function (without a comment)"]


def test_peers_impl_and_checkers_do_not_import_each_other() -> None:
    modules = sources()
    planted = Import(importer="checkers.logs.planted", path="planted.py", line=1, target="impl.cluster",
                     names=("Cluster",), in_function=False, commented=False)
    assert against_the_layers([planted], modules) == [
        "planted.py:1: checkers.logs.planted (3) imports impl.cluster (2)"]


def test_the_cycle_finder_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", ["campaign.judge.cause", "campaign.report.aggregate"])
def test_every_module_has_a_layer(module: str) -> None:
    assert layer_of(module) is not None
