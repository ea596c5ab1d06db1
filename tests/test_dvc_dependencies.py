"""Every stage in ``dvc.yaml`` lists every module of the package its script imports (ARCHITECTURE: DVC deps
are exact), so a change to any of them reruns the stage instead of leaving its results stale.

The import closure is read from the source (``ast``), imports inside functions included: a module a stage
imports lazily still shapes its outputs. The Rust extension ``acousticlaim._parser`` is built from
``parser_rs/``, so a stage that reaches it must depend on ``parser_rs/src`` and ``parser_rs/Cargo.toml``.
A package ``__init__.py`` that holds only a docstring, imports and literal constants runs nothing of its own
(what it imports is in the closure), so it need not be listed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "acousticlaim"
RUST_EXTENSION = f"{PACKAGE}._parser"
RUST_SOURCES = ("parser_rs/src", "parser_rs/Cargo.toml")


def _module_file(module: str) -> Path | None:
    """The source file of ``module`` inside the package (a package's ``__init__.py``), or ``None``."""
    base = ROOT.joinpath(*module.split("."))
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def _imported_modules(path: Path, module: str) -> set[str]:
    """Dotted names of the package modules ``path`` (the file of ``module``) imports, anywhere in it."""
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".")
                anchor = parts if is_package else parts[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            found.add(base)
            # ``from pkg import name``: name may be a submodule
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {m for m in found if m == PACKAGE or m.startswith(PACKAGE + ".")}


def _with_parents(module: str) -> list[str]:
    """``a.b.c`` → ``a``, ``a.b``, ``a.b.c``: importing a module runs its packages' ``__init__`` first."""
    parts = module.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def _runs_nothing(path: Path) -> bool:
    """A module of docstring, imports and assignments of literals only (``__version__``, ``__all__``)."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, ast.Assign):
            try:
                ast.literal_eval(node.value)
                continue
            except ValueError:
                pass
        return False
    return True


def import_closure(script: Path) -> set[str]:
    """Repository-relative files the stage ``script`` runs: package modules and the Rust sources."""
    needed: set[str] = set()
    seen: set[str] = set()
    todo = sorted(_imported_modules(script, "__main__"))
    while todo:
        name = todo.pop()
        for module in _with_parents(name):
            if module in seen:
                continue
            seen.add(module)
            if module == RUST_EXTENSION:
                needed.update(RUST_SOURCES)
                continue
            path = _module_file(module)
            if path is None:  # an attribute imported with ``from pkg import name``
                continue
            if not (path.name == "__init__.py" and _runs_nothing(path)):
                needed.add(path.relative_to(ROOT).as_posix())
            todo.extend(_imported_modules(path, module))
    return needed


def _stages() -> dict[str, dict]:
    """Stage name → its definition (a ``foreach`` stage's ``do`` block)."""
    spec = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    return {name: (stage.get("do") or stage) for name, stage in spec.items()}


def _script(stage: dict) -> Path:
    cmd = " ".join(stage["cmd"].split())
    scripts = [w for w in cmd.split() if w.startswith("stages/") and w.endswith(".py")]
    assert len(scripts) == 1, f"expected one stage script in {cmd!r}"
    return ROOT / scripts[0]


def _covered(path: str, deps: list[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in deps)


STAGES = _stages()


def test_import_closure_reads_lazy_and_relative_imports(tmp_path):
    """The closure walker itself, on a known input: the claims stage reaches the Rust sources through the
    parser, and a function-level import counts."""
    closure = import_closure(ROOT / "stages" / "claims.py")
    assert "acousticlaim/claims/parser.py" in closure
    assert set(RUST_SOURCES) <= closure
    script = tmp_path / "s.py"
    script.write_text("def main():\n    from acousticlaim.scoring import stats\n")
    assert "acousticlaim/scoring/stats.py" in import_closure(script)


@pytest.mark.parametrize("name", sorted(STAGES))
def test_stage_deps_cover_its_import_closure(name):
    stage = STAGES[name]
    script = _script(stage)
    deps = [d if isinstance(d, str) else next(iter(d)) for d in stage.get("deps", [])]
    assert _covered(script.relative_to(ROOT).as_posix(), deps), f"{name}: dvc.yaml deps miss its own script"
    missing = sorted(p for p in import_closure(script) if not _covered(p, deps))
    assert not missing, f"stage {name!r} imports files its dvc.yaml deps leave out: {', '.join(missing)}"
