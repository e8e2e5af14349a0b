"""Test support shared by the tests and the benchmarks: the response-fixture generator, the adversarial
strategies and the blind adversary that searches over them.

Not part of the product (it is not in the wheel). pytest puts ``tests/support`` on ``sys.path``
(``pythonpath`` in pyproject.toml); a benchmark run as a script adds it with :data:`SUPPORT_DIR`'s
one line: ``sys.path.insert(0, str(ROOT / "tests" / "support"))``.
"""

from __future__ import annotations

from pathlib import Path

SUPPORT_DIR = Path(__file__).resolve().parent.parent
"""The folder to put on ``sys.path`` (``tests/support``)."""
