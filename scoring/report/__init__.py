"""The HTML report: one self-contained file that shows how an agent did, where it lost points and why.

Headline, dimension chart, per-turn timeline, products and (for recorded sessions) the recording,
slides and files; several scorecards or models give a comparison view. Charts are inline SVG.
Layers: ``_view`` (what is shown, read from scorecards and session folders), ``_format``,
``_charts``, ``_content`` and ``_media`` (pieces), ``_html`` (the page); report.css and report.js
ship beside them.
"""

from modylbench.scoring.report._html import build_report, write_report
from modylbench.scoring.report._media import encode_recording
from modylbench.scoring.report._view import RunView, SessionView, build_runs, dimension_means, load_session

__all__ = [
    "RunView",
    "SessionView",
    "build_report",
    "build_runs",
    "dimension_means",
    "encode_recording",
    "load_session",
    "write_report",
]
