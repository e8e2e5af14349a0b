"""Functions and modules over their sizes: functions longer than --function lines (default 60), modules longer
than --module lines (default 600), for the files given (default: every package module).

Usage: python benchmarks/code_sizes.py [--root DIR] [--function N] [--module N] [FILE ...]
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

PACKAGES = ("scenarios", "record", "channels", "personas", "agents", "simulator", "scoring", "integrations")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--function", type=int, default=60)
    ap.add_argument("--module", type=int, default=600)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = [args.root / f for f in args.files] or [p for pkg in PACKAGES for p in (args.root / pkg).rglob("*.py")]
    long_functions, long_modules = [], []
    for path in files:
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        n = len(text.splitlines())
        if n > args.module:
            long_modules.append(f"{path.relative_to(args.root)} ({n})")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > args.function:
                    long_functions.append(f"{path.relative_to(args.root)}:{node.name} ({size})")
    print(f"modules over {args.module} lines: {len(long_modules)}: " + ", ".join(long_modules))
    print(f"functions over {args.function} lines: {len(long_functions)}: " + ", ".join(long_functions))


if __name__ == "__main__":
    main()
