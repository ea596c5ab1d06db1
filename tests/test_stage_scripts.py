"""Every DVC stage script has the same shape: ``main(argv) -> int`` over the installed package (no
``sys.path`` edits), run as ``raise SystemExit(main())``, its help reachable without running the stage."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

STAGES = sorted((Path(__file__).resolve().parents[1] / "stages").glob("*.py"))


@pytest.mark.parametrize("script", STAGES, ids=lambda p: p.stem)
def test_stage_script_shape(script):
    tree = ast.parse(script.read_text())
    mains = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"]
    assert len(mains) == 1, f"{script.name}: one top-level main()"
    main = mains[0]
    assert [a.arg for a in main.args.args] == ["argv"], f"{script.name}: main(argv)"
    assert ast.unparse(main.returns) == "int", f"{script.name}: main(argv) -> int"
    assert "sys.path" not in script.read_text(), f"{script.name}: the package is installed; no sys.path edits"
    guard = tree.body[-1]
    assert isinstance(guard, ast.If) and ast.unparse(guard.body[0]) == "raise SystemExit(main())", script.name
    helpers = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name != "main"]
    assert not helpers, f"{script.name}: helpers {helpers} belong in the package"


@pytest.mark.parametrize("script", STAGES, ids=lambda p: p.stem)
def test_stage_help_exits_cleanly(script, capsys):
    spec = importlib.util.spec_from_file_location(f"stage_{script.stem}", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(SystemExit) as stop:
        module.main(["--help"])
    assert stop.value.code == 0
    assert "usage:" in capsys.readouterr().out
