"""The --html page: self-contained, marks the failing op, stays small for long histories."""

from __future__ import annotations

import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from checkers.linearizability import REGISTER, check, render_html
from checkers.linearizability.history import Op, invoke, ok

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


CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs headless Chromium at /usr/bin/chromium")
def test_chromium_renders_the_page_with_the_failing_op(tmp_path: Path) -> None:
    page = tmp_path / "history.html"
    page.write_text(render_html(check(REGISTER, STALE_READ), REGISTER, title="stale read"))
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1000,700",
            f"--screenshot={shot}", page.as_uri(),
        ],
        check=True, capture_output=True, timeout=120,
    )
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5_000
    # the failing bar's fill (#f8c0c0) is on the screenshot
    assert _has_colour(shot, (0xF8, 0xC0, 0xC0))
    keep = os.environ.get("TCMCHECK_KEEP_SHOT")  # a path: keep the screenshot for a human
    if keep:
        shutil.copy(shot, keep)


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
