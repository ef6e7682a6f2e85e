#!/usr/bin/env python3
"""Print the import arrows between kg's subpackages (and top-level modules) of a checkout, and any
pair that imports each other.

    python scripts/import_graph.py            # this checkout
    git worktree add /tmp/before REV && python scripts/import_graph.py /tmp/before
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path


def arrows(root: Path) -> dict[str, set[str]]:
    """Subpackage -> the subpackages it imports (imports inside functions count too)."""
    def unit(module: str) -> str:
        return ".".join(module.split(".")[:2])

    out: dict[str, set[str]] = defaultdict(set)
    for path in sorted((root / "kg").rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        module = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kg"):
                targets = [node.module] + ([f"kg.{a.name}" for a in node.names] if node.module == "kg" else [])
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("kg")]
            else:
                continue
            for target in targets:
                if unit(module) != unit(target) and unit(target) != "kg":
                    out[unit(module)].add(unit(target))
    return out


def main() -> None:
    graph = arrows(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    for source in sorted(graph):
        print(f"{source:16} -> {', '.join(sorted(graph[source]))}")
    both = sorted((a, b) for a in graph for b in graph[a] if a < b and a in graph.get(b, ()))
    print("imported both ways:", ", ".join(f"{a} <-> {b}" for a, b in both) or "none")


if __name__ == "__main__":
    main()
