"""The scoring commands of the ``modylbench`` CLI (``evaluate``, ``report``), loaded lazily by its command table."""

from modylbench.scoring._cli import deprecated_spelling, evaluate
from modylbench.scoring._cmd_report import report

__all__ = ["deprecated_spelling", "evaluate", "report"]
