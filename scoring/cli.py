"""The scoring commands of the ``modylbench`` CLI (``evaluate``, ``report``), loaded lazily by its command table."""

from modylbench.scoring._cli import evaluate
from modylbench.scoring._cmd_report import report

__all__ = ["evaluate", "report"]
