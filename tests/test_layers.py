"""Imports point down the layers (../shared/DESIGN.md): a folder of the package imports only folders
on a lower floor, at module level or inside a function alike. An upward import fails here."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "src" / "tensortune"

# floor of each folder; a module may import its own folder and any folder on a lower floor
FLOORS: dict[str, int] = {
    "space": 0,
    "core": 1, "workloads": 1,
    "accel": 2,
    "explorers": 3, "samplers": 3, "cost_models": 3, "hardware": 3,
    "templates": 4,
    "measure": 5,
    "storage": 6, "features": 6,
    "transfer": 7,
    "strategies": 7,
    "tuners": 8,
    "integrations": 9,
    "reports": 10,
    "bench": 11,
    "models": 12,
    "cli": 13,
}


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, first-level tensortune folder) of every import in the file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for n in names:
            parts = n.split(".")
            if parts[0] == "tensortune" and len(parts) > 1:
                out.append((node.lineno, parts[1]))
    return out


def upward_imports() -> list[str]:
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG)
        if len(rel.parts) < 2:
            continue  # the package's __init__
        folder = rel.parts[0]
        for line, target in imports_of(path):
            if target == folder:
                continue
            if target not in FLOORS:
                bad.append(f"{rel}:{line} imports tensortune.{target}, a folder with no floor")
            elif FLOORS[target] >= FLOORS[folder]:
                bad.append(f"{rel}:{line} ({folder}, floor {FLOORS[folder]}) imports {target} (floor {FLOORS[target]})")
    return bad


def test_every_folder_has_a_floor() -> None:
    folders = {p.name for p in PKG.iterdir() if p.is_dir() and any(p.glob("*.py"))}
    assert folders <= set(FLOORS), f"folders without a floor: {folders - set(FLOORS)}"


def test_imports_point_down() -> None:
    bad = upward_imports()
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_the_check_catches_an_upward_import(tmp_path) -> None:
    f = tmp_path / "x.py"
    f.write_text("def f():\n    from tensortune.models.flow import tune_model\n")
    assert imports_of(f) == [(2, "models")]
