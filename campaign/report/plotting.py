"""What every plot of the report shares: colours, figure sizes that grow with their content,
wrapped (never cut) labels, legends outside the data, and the SVG they are inlined as.

A layout test (tests/campaign/test_report_layout.py) measures every figure's text extents: no
two texts overlap, none is cut, all lie inside their figure (and inside their chart when drawn
in it), and no legend covers a bar. Figures are therefore sized from what they hold (rows of
wrapped labels, lanes, steps) rather than fixed, and legends sit below the chart.
"""

from __future__ import annotations

import io
import textwrap
from typing import Any

NEW = "#c0392b"
"""Fill of new failures' bars (the Chromium test looks for it)."""
KNOWN = "#e69f00"
OK = "#2e86c1"
KIND_COLOURS = ["#5dade2", "#48c9b0", "#af7ac5", "#f5b041"]
WIDTH = 9.0
"""Inches (at 96 dpi, the page's 864 px column)."""
LINE = 0.19
"""Inches per line of a 10-point label (its height with matplotlib's line spacing, and a gap)."""


def svg(fig: Any) -> str:
    """`fig` as an inline `<svg>` element (text as text, no date: the same page for the same data)."""
    import matplotlib  # heavy optional dependency: only when a page is drawn

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "tcmcheck"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]


def figure(height: float, width: float = WIDTH) -> Any:
    from matplotlib.figure import Figure  # heavy optional dependency: only when a page is drawn

    return Figure(figsize=(width, height), dpi=96, layout="constrained")


def wrap(text: str, width: int) -> str:
    """`text` on lines of at most `width` characters (long words broken): whole, never cut."""
    return "\n".join(textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False)) or text


def lines(labels: list[str]) -> int:
    return sum(label.count("\n") + 1 for label in labels)


def rows_height(labels: list[str], per_row: float = 0.12, extra: float = 1.4) -> float:
    """The height that gives each of `labels` (y tick labels, possibly wrapped) its lines and a gap."""
    return LINE * lines(labels) + per_row * len(labels) + extra


def legend_below(fig: Any, handles: list[Any] | None = None) -> None:
    """The legend in the figure's bottom margin, outside every chart (so it covers no bar)."""
    if handles is None:
        handles = [h for ax in fig.axes for h in ax.get_legend_handles_labels()[0]]
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 4), frameon=False,
                   fontsize=8)


def empty(ax: Any, message: str) -> None:
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="#666")
    ax.set_xticks([])
    ax.set_yticks([])


def title(ax: Any, text: str, width: int = 100, fontsize: float = 10) -> None:
    """A title wrapped to the figure's width (a long cause line stays whole)."""
    ax.set_title(wrap(text, width), fontsize=fontsize)


__all__ = ["KIND_COLOURS", "KNOWN", "LINE", "NEW", "OK", "WIDTH", "empty", "figure", "legend_below", "lines",
           "rows_height", "svg", "title", "wrap"]
