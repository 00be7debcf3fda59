"""The --html page: self-contained, marks the failing op, stays small for long histories."""

from __future__ import annotations

import os
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from checkers.linearizability import REGISTER, check, render_html
from checkers.linearizability.history import Op, invoke, ok
from tests.browser import CHROMIUM, chromium

STALE_READ = (
    invoke(0, "write", 1), ok(0, "write", 1),
    invoke(1, "write", 2), ok(1, "write", 2),
    invoke(2, "read"), ok(2, "read", 1),
)


class Bars(HTMLParser):
    """Collects each op group's classes and label, and any external reference."""

    def __init__(self) -> None:
        super().__init__()
        self.current: str | None = None
        self.bars: dict[str, dict[str, str]] = {}
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "g" and a.get("data-op") is not None:
            self.current = a["data-op"]
            self.bars[self.current] = {"class": "", "text": ""}
        elif tag == "rect" and self.current is not None:
            self.bars[self.current]["class"] = a.get("class") or ""
        for name in ("src", "href"):
            if a.get(name):
                self.external.append(a[name] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "g":
            self.current = None

    def handle_data(self, data: str) -> None:
        if self.current is not None:
            self.bars[self.current]["text"] += data


def test_the_failing_op_is_marked_and_the_others_are_not() -> None:
    verdict = check(REGISTER, STALE_READ)
    parser = Bars()
    parser.feed(render_html(verdict, REGISTER))
    failing = [op_id for op_id, bar in parser.bars.items() if "failing" in bar["class"].split()]
    assert verdict.evidence.failing_op is not None
    assert failing == [str(verdict.evidence.failing_op.id)]
    assert "read() -> 1" in parser.bars[failing[0]]["text"]
    assert "linearized" in parser.bars["0"]["class"]  # write(1) is in the longest linearization
    assert parser.external == []  # self-contained


def test_a_valid_history_draws_its_linearization() -> None:
    page = render_html(check(REGISTER, STALE_READ[:4]), REGISTER)
    parser = Bars()
    parser.feed(page)
    assert all("linearized" in bar["class"] for bar in parser.bars.values())
    assert "failing" not in " ".join(bar["class"] for bar in parser.bars.values())


def long_history(ops: int) -> tuple[Op, ...]:
    h: list[Op] = []
    for i in range(ops):
        h += [invoke(i % 5, "write", i, key=f"k{i % 10}"), ok(i % 5, "write", i, key=f"k{i % 10}")]
    h += [invoke(0, "read", key="k3"), ok(0, "read", -1, key="k3")]
    return tuple(h)


def test_the_page_is_capped_for_long_histories() -> None:
    verdict = check(REGISTER, long_history(5000))
    page = render_html(verdict, REGISTER, max_ops=2000)
    assert len(page) < 1_500_000
    parser = Bars()
    parser.feed(page)
    assert len(parser.bars) <= 2000
    assert str(verdict.evidence.failing_op.id) in parser.bars  # type: ignore[union-attr]


def simulator_history(ops: int, fail_at: int | None = None) -> tuple[Op, ...]:
    """A simulator's shape: every request its own process, two at a time per key, times in ns
    (ten digits), four keys; a stale read at `fail_at`."""
    h: list[Op] = []

    def pair(i: int, f: str, arg: object, out: object, key: str, t: int) -> list[Op]:
        return [Op(process=i, type="invoke", f=f, key=key, value=arg, time=t),
                Op(process=i, type="ok", f=f, key=key, value=out, time=t + 5_000_000)]

    last: dict[str, int | None] = {}
    for i in range(ops):
        key, t = f"k{i % 4}", 1_000_000_000 + 7_919_123 * i
        if i == fail_at:
            h += pair(i, "read", None, -1, key, t)
        elif i % 3:
            h += pair(i, "write", i, i, key, t)
            last[key] = i
        else:
            h += pair(i, "read", None, last.get(key), key, t)
    return tuple(h)


class Texts(HTMLParser):
    """Every SVG text with its x and class, and each timeline's width."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[dict[str, str]] = []
        self.widths: list[float] = []
        self._open: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "svg" and "timeline" in a.get("class", ""):
            self.widths.append(float(a["width"]))
        if tag == "text":
            self._open = {**a, "text": ""}
            self.texts.append(self._open)

    def handle_endtag(self, tag: str) -> None:
        if tag == "text":
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open["text"] += data


def tick_gaps(page: str) -> list[tuple[str, str, float]]:
    """Neighbouring axis names (per row of the axis) and the room left between them."""
    from checkers.linearizability.html_script import CHAR_PX

    parser = Texts()
    parser.feed(page)
    gaps = []
    for y in ("12", "24"):
        ticks = [t for t in parser.texts if t.get("class") == "tick" and t["y"] == y and t["x"] != "4"]
        for a, b in zip(ticks, ticks[1:], strict=False):
            if float(b["x"]) > float(a["x"]):  # the next timeline starts again on the left
                gaps.append((a["text"], b["text"], float(b["x"]) - float(a["x"]) - len(a["text"]) * CHAR_PX))
    return gaps


def test_axis_names_never_run_together() -> None:
    """Events numbered and timed in ns (`10 (252573099 ns)33 (...)` ran together)."""
    page = render_html(check(REGISTER, simulator_history(400)), REGISTER)
    gaps = tick_gaps(page)
    assert len(gaps) > 20 and [g for g in gaps if g[2] < 0] == []


def test_a_simulator_history_packs_its_processes_into_few_lanes() -> None:
    """400 requests, each its own process: a few lanes a key, not 400 rows off the screen."""
    page = render_html(check(REGISTER, simulator_history(400)), REGISTER)
    parser = Texts()
    parser.feed(page)
    lanes = {t["text"] for t in parser.texts if t["text"].startswith("lane ")}
    assert lanes and len(lanes) <= 3 and not any(t["text"].startswith("p ") for t in parser.texts)
    assert parser.widths and max(parser.widths) <= 1000  # laid out for the page's width


def test_values_are_written_as_the_input_writes_them() -> None:
    """A read of an absent value is `null` (JSON, the default) or `nil` (EDN), never `None`;
    labels are whole (an op with no room for its label hides it; its tooltip has it)."""
    verdict = check(REGISTER, simulator_history(40))
    assert verdict.valid is True
    page = render_html(verdict, REGISTER).split("<script>")[0]
    assert "read() -&gt; null" in page and "<td>null</td>" in page  # an op, and a state
    assert "None" not in page and "…" not in page.split("<table>")[0]
    from campaign.formats.history_out import value_writer

    edn_page = render_html(verdict, REGISTER, show_value=value_writer("edn")).split("<script>")[0]
    assert "read() -&gt; nil" in edn_page and "<td>nil</td>" in edn_page
    assert "None" not in edn_page and "null" not in edn_page




@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs headless Chromium at /usr/bin/chromium")
def test_chromium_renders_the_page_with_the_failing_op(tmp_path: Path) -> None:
    page = tmp_path / "history.html"
    page.write_text(render_html(check(REGISTER, STALE_READ), REGISTER, title="stale read"))
    shot = tmp_path / "shot.png"
    chromium(tmp_path / "profile", page.as_uri(), "--window-size=1000,700", f"--screenshot={shot}")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5_000
    # the failing bar's fill (#f8c0c0) is on the screenshot
    assert _has_colour(shot, (0xF8, 0xC0, 0xC0))
    keep = os.environ.get("TCMCHECK_KEEP_SHOT")  # a path: keep the screenshot for a human
    if keep:
        shutil.copy(shot, keep)


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs headless Chromium at /usr/bin/chromium")
@pytest.mark.parametrize("window", [900, 1400])
def test_chromium_fits_a_simulator_history_to_the_window(tmp_path: Path, window: int) -> None:
    """400 requests over four keys, a stale read in the middle: every timeline fits the window
    once the page's script has run, its axis names do not touch, and the bars are drawn;
    `#failing` zooms in (wider than the window, to scroll) with the failing op in view."""
    page = tmp_path / "sim.html"
    page.write_text(render_html(check(REGISTER, simulator_history(400, fail_at=201)), REGISTER, title="sim"))
    size = f"--window-size={window},900"
    dom = chromium(tmp_path / "p1", page.as_uri(), size, "--dump-dom")
    parser = Texts()
    parser.feed(dom)
    assert parser.widths and max(parser.widths) <= window - 30  # the body's margins and the border
    assert [g for g in tick_gaps(dom) if g[2] < 0] == []
    shot = tmp_path / "fit.png"
    chromium(tmp_path / "p2", page.as_uri(), size, f"--screenshot={shot}")
    assert _has_colour(shot, (0xF8, 0xC0, 0xC0))  # the failing bar, in the first screenful
    zoomed = Texts()
    zoomed.feed(chromium(tmp_path / "p3", page.as_uri() + "#failing", size, "--dump-dom"))
    assert max(zoomed.widths) > 2 * window
    shot = tmp_path / "failing.png"
    chromium(tmp_path / "p4", page.as_uri() + "#failing", size, f"--screenshot={shot}")
    assert _has_colour(shot, (0xF8, 0xC0, 0xC0))  # scrolled to it
    keep = os.environ.get("TCMCHECK_KEEP_SHOT")
    if keep:
        shutil.copy(shot, f"{keep}-{window}-failing.png")


def _has_colour(png: Path, rgb: tuple[int, int, int]) -> bool:
    """Decode a non-interlaced 8-bit RGB(A) PNG with zlib and look for one exact colour."""
    import struct
    import zlib

    raw = png.read_bytes()
    pos, idat, width, height, colour_type = 8, b"", 0, 0, 0
    while pos < len(raw):
        length, kind = struct.unpack(">I4s", raw[pos : pos + 8])
        body = raw[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour_type = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour_type in (2, 6)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    bpp = 3 if colour_type == 2 else 4
    data = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    target = bytes(rgb)
    for y in range(height):
        ftype = data[y * (stride + 1)]
        line = bytearray(data[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xFF
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xFF
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        for x in range(0, stride, bpp):
            if line[x : x + 3] == target:
                return True
        prev = line
    return False
