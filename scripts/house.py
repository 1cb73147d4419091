"""The house's own figures: what a change costs where (the one place a per-turn flag, a tool and a backend are
added), the longest functions and files, and the checks that keep it so (imports running against the house's
direction, modules importing each other in a loop, ruff and mypy findings, ``type: ignore`` count). Read-only; quoted
in docs/development.md, its rules held by tests/test_lint.py.

    python scripts/house.py            # the figures
    python scripts/house.py --no-checks  # without running ruff and mypy (a few seconds instead of a minute)
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PACKAGES = ("assistant", "tools")


def sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


LONG_FUNCTION = 60  # lines: a function past this is counted (the bar: at most 5)
LARGE_CLASS = 350  # lines: a class of assistant/ past this is named (the bar: none)


def measured() -> tuple[list[tuple[int, str]], list[tuple[int, str]], list[tuple[int, str]]]:
    """Every function, file and class, in lines: (lines, where), longest first."""
    functions, files, classes = [], [], []
    for path in sources():
        text = path.read_text(encoding="utf-8")
        where = str(path.relative_to(ROOT))
        files.append((len(text.splitlines()), where))
        for node in ast.walk(ast.parse(text)):
            lines = (getattr(node, "end_lineno", None) or 0) - getattr(node, "lineno", 0) + 1
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.append((lines, f"{where}:{node.name}"))
            elif isinstance(node, ast.ClassDef):
                classes.append((lines, f"{where}:{node.name}"))
    return sorted(functions, reverse=True), sorted(files, reverse=True), sorted(classes, reverse=True)


ABOVE = ("assistant.app", "assistant.answering", "assistant.pipeline", "assistant.frontends")
TOP = {"assistant/app.py", "assistant/answering.py", "assistant/__main__.py"}  # the modules of assistant/ over the
# pipeline (they build it, or say what a front end asks of it); every other module directly in assistant/ is under it


def banned(where: str) -> tuple[str, ...]:
    """What the module at ``where`` (a path from the checkout's root) must not import: tools/ nothing of assistant/,
    the store and the other modules under the pipeline nothing over them, models/ neither, the pipeline no front
    end, a front end not the command line that starts it."""
    if where.startswith("tools/"):
        return ("assistant",)
    if where.startswith("assistant/models/") or where.count("/") == 1 and where not in TOP:
        return ABOVE
    if where.startswith("assistant/pipeline/"):
        return ("assistant.app", "assistant.answering", "assistant.frontends")
    if where.startswith("assistant/frontends/") and not where.startswith("assistant/frontends/cli/"):
        return ("assistant.frontends.cli",)  # the command line starts the front ends, not the other way
    return ()


def arrows_in(where: str, text: str) -> list[str]:
    """The imports of the module at ``where`` (its source ``text``) that run against the house's direction, at any
    depth of the module (a late import included)."""
    no, found = banned(where), []
    for node in ast.walk(ast.parse(text)) if no else ():
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
            [a.name for a in node.names] if isinstance(node, ast.Import) else []
        found += [f"{where} imports {n}" for n in names if any(n == b or n.startswith(b + ".") for b in no)]
    return found


def arrows_up() -> list[str]:
    return [a for path in sources() for a in arrows_in(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))]


def imports_of(path: Path) -> set[str]:
    """The modules of the house that the module at ``path`` imports (a late import included; ``from P import m``
    names the module ``P.m`` when there is one), packages' faces (``__init__.py``) left out."""
    known = {module_name(p) for p in sources()}
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known else node.module
                      for a in node.names}
    return {m for m in found if m in known and not m.endswith("__init__")} - {module_name(path)}


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def circles(graph: dict[str, set[str]] | None = None) -> list[list[str]]:
    """Modules that import each other in a loop (each strongly connected group of more than one, Tarjan's way)."""
    if graph is None:
        graph = {module_name(p): imports_of(p) for p in sources() if p.name != "__init__.py"}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph) + 100))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


JAIL = "tools.jail"
JAIL_USES = ("tools.base", "tools.logfile")  # all a jail module may import of the house: the tool interface it runs
# and the tools' log file (never a tool, a plugin host, an MCP client or the assistant)


def jail_modules() -> set[str]:
    return {p.stem for p in (ROOT / "tools" / "jail").glob("*.py") if p.name != "__init__.py"}


def wall_in(where: str, text: str) -> list[str]:
    """The imports of the module at ``where`` (its source ``text``) that go through the jail's wall: from inside
    tools/jail/, anything of the house but the jail and :data:`JAIL_USES`; from outside, any of the jail's own
    modules (what the rest may use is the package's face, ``tools.jail``). Tests may look inside."""
    inside, own, found = where.startswith("tools/jail/"), jail_modules(), []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [f"{node.module}.{a.name}" if node.module in ("tools", JAIL) else node.module for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for n in names:
            if inside and n.split(".")[0] in PACKAGES and not n.startswith(JAIL) and \
                    not any(n == u or n.startswith(u + ".") for u in JAIL_USES):
                found.append(f"{where} (in the jail) imports {n}")
            elif not inside and n.startswith(JAIL + ".") and n.split(".")[2] in own:
                found.append(f"{where} imports the jail's own {n}")
    return found


def wall_breaches() -> list[str]:
    return [b for path in sources() + sorted((ROOT / "scripts").glob("*.py"))
            for b in wall_in(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))]


def patterns() -> int:
    """Hand-written regular expressions in the packages: each ``re.compile``/``lazy_compile`` call and each ``re``
    function called with a pattern written in place (what a learned reader is meant to replace, issue 62)."""
    import ast

    count = 0
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            is_re = isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "re"
            if name == "lazy_compile" or (is_re and name in ("compile", "search", "match", "fullmatch", "sub", "subn",
                                                              "findall", "finditer", "split")):
                count += 1
    return count


def ignores() -> int:
    return sum(len(re.findall(r"#\s*type:\s*ignore", p.read_text(encoding="utf-8"))) for p in sources())


def findings(tool: str, args: list[str]) -> str:
    """How many findings ``tool`` reports (its exit status and its own summary line), or why it was not run."""
    if importlib.util.find_spec(tool) is None:
        return "not installed (pip install -e '.[test]')"
    p = subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True)
    lines = [line for line in (p.stdout + p.stderr).splitlines() if line.strip()]
    return f"{'0 findings' if p.returncode == 0 else 'FINDINGS'}: {lines[-1] if lines else ''}"


def one_place() -> list[tuple[str, str]]:
    """Where each kind of addition is declared (assistant/extending.py), with how many there are of it now."""
    import importlib

    from assistant.extending import POINTS

    out = []
    for point in POINTS:
        module, _, name = point.declared.partition(":")
        value = getattr(importlib.import_module(module), name)
        count = f" ({len(value)} now)" if isinstance(value, (tuple, list, dict)) else ""
        out.append((point.what.split(" (")[0], f"{point.declared}{count}; touches {', '.join(point.touches)}"))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-checks", action="store_true", help="do not run ruff and mypy")
    args = parser.parse_args()
    functions, files, classes = measured()
    print("what an addition touches:")
    for what, where in one_place():
        print(f"  {what:<28} {where}")
    print("longest functions: " + "; ".join(f"{where} ({n} lines)" for n, where in functions[:3]))
    long = [f for f in functions if f[0] > LONG_FUNCTION]
    print(f"functions over {LONG_FUNCTION} lines: {len(long)} of {len(functions)} "
          f"({100 * len(long) / max(len(functions), 1):.1f}%)")
    print("longest files:     " + "; ".join(f"{where} ({n} lines)" for n, where in files[:3]))
    big = [f for f in files if f[0] > LARGE_CLASS]
    print(f"files over {LARGE_CLASS} lines: {len(big)} of {len(files)} ("
          + ", ".join(f"{where} {n}" for n, where in big) + ")")
    large = [c for c in classes if c[0] > LARGE_CLASS and c[1].startswith("assistant/")]
    print(f"classes over {LARGE_CLASS} lines in assistant/: " + ("; ".join(f"{w} ({n})" for n, w in large) or "none"))
    up = arrows_up()
    print("arrows running up: " + ("; ".join(up) if up else "none (tools/ -> assistant/; the store, models/ and "
                                                            "the modules under the pipeline -> pipeline/ or over it; "
                                                            "pipeline/ -> frontends/; a front end -> cli/)"))
    loops = circles()
    print("circles:           " + ("; ".join(" -> ".join(c) for c in loops) if loops else
                                   "none (no modules of assistant/ or tools/ import each other in a loop)"))
    wall = wall_breaches()
    print("the jail's wall:   " + ("; ".join(wall) if wall else
                                   f"held (tools/jail/ imports only itself and {', '.join(JAIL_USES)}; nothing "
                                   "outside it imports more than its face, tools.jail)"))
    print(f"type: ignore:      {ignores()} in {len(sources())} files of {', '.join(PACKAGES)}")
    print(f"regular expressions: {patterns()} written by hand in {', '.join(PACKAGES)}")
    if not args.no_checks:
        print(f"ruff:              {findings('ruff', ['check', *PACKAGES, 'tests', 'scripts'])}")
        print(f"mypy:              {findings('mypy', list(PACKAGES))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
