"""The architecture holds: import-linter's contracts in pyproject.toml (layers
engine < graph < story < render < app < cli, no Qt below render, the app's rooms) and no
import cycle anywhere in gradviz (a module two others need goes below both)."""
import ast
import os
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]


def test_import_linter_contracts_are_kept():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    result = subprocess.run([sys.executable, "-c", code, "--no-cache", "--no-logo", "pyproject.toml"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert "BROKEN" not in result.stdout and result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout, result.stdout


def import_cycles(graph):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, cycles = {}, {}, set(), [], []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.find_modules_directly_imported_by(target)))))
                    break
                if target in on_stack:
                    low[module] = min(low[module], index[target])
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
                    if len(component) > 1:
                        cycles.append(sorted(component))
    return cycles


def test_the_cycle_finder_finds_a_cycle():
    graph = grimp.ImportGraph()
    for module in ("p", "p.a", "p.b", "p.c", "p.d"):
        graph.add_module(module)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.c")
    graph.add_import(importer="p.c", imported="p.a")
    graph.add_import(importer="p.d", imported="p.a")
    assert import_cycles(graph) == [["p.a", "p.b", "p.c"]]


def test_gradviz_imports_have_no_cycle():
    sys.path.insert(0, str(ROOT))
    try:
        graph = grimp.build_graph("gradviz", cache_dir=None)
    finally:
        sys.path.remove(str(ROOT))
    assert graph.find_modules_directly_imported_by("gradviz.app.window.main_window")
    cycles = import_cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def late_imports(root):
    """(path, line, node) of every import made inside a function of the package."""
    found = {}
    for path in sorted((root / "gradviz").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.update(((path, node.lineno), node) for node in ast.walk(function)
                             if isinstance(node, (ast.Import, ast.ImportFrom)))
    return [(path, lineno, node) for (path, lineno), node in sorted(found.items())]


def says_why(lines, lineno):
    """A comment on the import's line, or on the line above its group of imports
    (a `try:` or a blank line inside the group counts as part of it)."""
    i = lineno - 1
    if "#" in lines[i]:
        return True
    while i > 0 and (lines[i - 1].strip().startswith(("from ", "import ", "try:"))
                     or not lines[i - 1].strip() and i > 1
                     and lines[i - 2].strip().startswith(("from ", "import "))):
        i -= 1
        if "#" in lines[i]:
            return True
    return i > 0 and lines[i - 1].strip().startswith("#")


def test_an_import_inside_a_function_says_why():
    """Imports run at the top; one inside a function is for a heavy optional dependency
    loaded late on purpose (numba, pyqtgraph, Qt, the app from the CLI), and says so."""
    silent = []
    for path, lineno, _ in late_imports(ROOT):
        lines = path.read_text(encoding="utf-8").split("\n")
        if not says_why(lines, lineno):
            silent.append(f"{path.relative_to(ROOT)}:{lineno}: {lines[lineno - 1].strip()}")
    assert not silent, "imports inside functions without a reason:\n" + "\n".join(silent)


def test_a_silent_late_import_is_found(tmp_path):
    package = tmp_path / "gradviz"
    package.mkdir()
    (package / "m.py").write_text("def f():\n    # numba: late on purpose\n    import numba\n\n"
                                  "def g():\n    import json\n", encoding="utf-8")
    found = late_imports(tmp_path)
    lines = (package / "m.py").read_text(encoding="utf-8").split("\n")
    assert [(n, says_why(lines, n)) for _, n, _ in found] == [(3, True), (6, False)]
