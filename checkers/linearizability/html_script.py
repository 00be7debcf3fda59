"""The style and the inline script of the check-history page (checkers/linearizability/html.py).

The script (plain, no library, no network) re-lays the timelines out at a new horizontal scale:
"fit" makes each timeline as wide as the window (the default once loaded), "+" and "−" zoom in
and out, "failing op" zooms in on the failing operation, and the key filter shows one part; the same
from a link (`page.html#failing`, `#zoom=4`, `#key=key "k1"`), which is how the screenshot test
sees a zoomed page.
Text keeps its size at every scale: an operation's label or position is drawn only where it has
room before the next operation of its lane (the tooltip always has it all), and the axis names
every k-th event, k chosen so its labels never touch. The Python side lays the page out the
same way at its default scale, so a reader without script sees the same page, only not zoomable.
"""

from __future__ import annotations

CHAR_PX = 6.7
"""Width of a character of the 11 px monospace font (DejaVu Sans Mono: 0.602 em, and a margin)."""

CSS = """
body{font:13px system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:18px} h2{font-size:15px;margin-top:24px}
.verdict-true{color:#176317} .verdict-false{color:#b00020} .verdict-unknown{color:#8a5a00}
.scroll{overflow-x:auto;border:1px solid #ccc;background:#fafafa}
rect.op{fill:#cfe3fb;stroke:#5b8bd0} rect.op.linearized{fill:#c8ecc8;stroke:#3b8b3b}
rect.op.failing{fill:#f8c0c0;stroke:#b00020;stroke-width:3}
rect.op.window{stroke:#e07b00;stroke-width:2;stroke-dasharray:4 2}
rect.op.failing.window{stroke:#b00020;stroke-width:3;stroke-dasharray:none}
text{font:11px monospace} text.lin{fill:#176317;font-weight:bold}
text.fail{fill:#b00020;font-weight:bold} text.tick{fill:#777}
table{border-collapse:collapse;margin-top:8px} td,th{border:1px solid #ddd;padding:2px 6px;font:12px monospace}
tr.failing td{background:#f8c0c0}
.legend span{display:inline-block;padding:1px 6px;margin-right:8px;border:1px solid #888}
.controls{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #ddd;z-index:1}
.controls button,.controls select{font:13px system-ui,sans-serif;margin-right:6px}
"""

SCRIPT = """
(function () {
  var CHAR = %(char)s, zoom = 1;
  function fitStep(svg) {
    var n = +svg.dataset.n, left = +svg.dataset.left;
    var room = svg.parentNode.clientWidth - left - 60;
    return Math.min(64, Math.max(room / Math.max(n, 1), 0.05));
  }
  function tick(svg, x, y, text) {
    var t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
    t.setAttribute('class', 'tick'); t.setAttribute('x', x); t.setAttribute('y', y);
    t.textContent = text; svg.appendChild(t);
  }
  function layout(svg, step) {
    var left = +svg.dataset.left, n = +svg.dataset.n, x0 = left + 10;
    var right = x0 + n * step + 40, width = right + 8;
    svg.setAttribute('width', width);
    svg.querySelectorAll('text.tick').forEach(function (t) { t.remove(); });
    var events = JSON.parse(svg.dataset.events), longest = 0;
    events.forEach(function (e) { longest = Math.max(longest, String(e[0]).length, e[1] === null ? 0 : (e[1] + ' ns').length); });
    var every = Math.max(1, Math.ceil((longest * CHAR + 12) / step));
    tick(svg, 4, 12, 'event'); tick(svg, 4, 24, 'time');
    for (var i = 0; i < n; i += every) {
      if (x0 + i * step + longest * CHAR > width) break;  // a name past the edge would be cut
      tick(svg, x0 + i * step, 12, String(events[i][0]));
      if (events[i][1] !== null) tick(svg, x0 + i * step, 24, events[i][1] + ' ns');
    }
    svg.querySelectorAll('line.lane').forEach(function (l) { l.setAttribute('x2', width); });
    svg.querySelectorAll('g[data-op]').forEach(function (g) {
      var call = +g.dataset.call, ret = g.dataset.ret === '' ? null : +g.dataset.ret;
      var a = x0 + call * step, b = ret === null ? right - 10 : x0 + ret * step;
      var room = +g.dataset.room * step;
      var rect = g.querySelector('rect');
      rect.setAttribute('x', a); rect.setAttribute('width', Math.max(b - a, 4));
      g.querySelectorAll('text').forEach(function (t) {
        var shift = t.classList.contains('fail') ? 14 : 3;
        t.setAttribute('x', a + shift);
        var need = t.textContent.length * CHAR + shift + 4;
        t.style.display = (t.classList.contains('fail') || need <= room) ? '' : 'none';
      });
    });
  }
  function all(f) { document.querySelectorAll('svg.timeline').forEach(f); }
  function apply() { all(function (svg) { layout(svg, fitStep(svg) * zoom); }); }
  window.tcmZoom = function (how) {
    if (how === 'fit') zoom = 1; else zoom = Math.max(1, zoom * how);
    apply();
  };
  window.tcmFailing = function () {
    var g = document.querySelector('g[data-op] rect.failing');
    if (!g) return;
    var svg = g.ownerSVGElement, step = fitStep(svg);
    zoom = Math.max(1, 14 / step); apply();
    var box = svg.parentNode, x = +g.getAttribute('x');
    box.scrollLeft = Math.max(0, x - box.clientWidth / 2);
    svg.scrollIntoView({block: 'center'});
  };
  window.tcmKey = function (key) {
    document.querySelectorAll('section.part').forEach(function (s) {
      s.style.display = (key === '' || s.dataset.key === key) ? '' : 'none';
    });
  };
  window.addEventListener('resize', apply);
  apply();
  // a link can open the page zoomed: #failing, #zoom=4, #key=KEY (as the part menu names it)
  var hash = decodeURIComponent(location.hash.slice(1));
  if (hash === 'failing') window.tcmFailing();
  else if (hash.indexOf('zoom=') === 0) window.tcmZoom(+hash.slice(5) || 1);
  else if (hash.indexOf('key=') === 0) window.tcmKey(hash.slice(4));
})();
"""


def script() -> str:
    return SCRIPT % {"char": CHAR_PX}


__all__ = ["CHAR_PX", "CSS", "script"]
