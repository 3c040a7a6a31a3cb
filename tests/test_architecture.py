"""The architecture holds: import-linter's contracts in pyproject.toml (layers
engine < graph < story < render < app < cli, no Qt below render, the app's rooms) and no
import cycle anywhere in gradviz (a module two others need goes below both)."""
import os
from fnmatch import fnmatch
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
# The circles issue 24 is breaking, smallest first; each goes from this list when it is
# broken, and no module may join one. (Patterns: fnmatch.)
KNOWN_CYCLES = [
    ("gradviz.engine.array", "gradviz.engine.backend", "gradviz.engine.backward",
     "gradviz.engine.execute", "gradviz.engine.recording", "gradviz.engine.registry",
     "gradviz.engine.tensor", "gradviz.engine.ops.*"),
    ("gradviz.engine.blocks", "gradviz.engine.tape"),
    ("gradviz.graph.build", "gradviz.graph.fileformat", "gradviz.graph.validate"),
    ("gradviz.story.assemble", "gradviz.story.local", "gradviz.story.model",
     "gradviz.story.studies", "gradviz.story.study_text", "gradviz.story.text"),
]


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
    new = [c for c in import_cycles(graph) if not any(known_cycle(c, k) for k in KNOWN_CYCLES)]
    assert not new, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in new)


def known_cycle(cycle, patterns):
    return all(any(fnmatch(module, p) for p in patterns) for module in cycle)
