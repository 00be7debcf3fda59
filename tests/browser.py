"""Headless Chromium for the tests that render a page: one way to start it.

Why it is started this way:
- stdin is /dev/null and Chromium runs in its own session, so that a hang is killed whole (its
  zygote, GPU and renderer processes too) instead of holding the test's pipes open;
- `--disable-dev-shm-usage`: Debian's launcher adds it only when /dev/shm is small, and its test
  of that breaks when `findmnt` prints two lines (it does on this project's machines), so it is
  given here;
- one retry, with a fresh profile, when Chromium does not finish in `TIMEOUT` seconds: CI once saw
  three starts in a row hang for 120 s in the pure-Python leg (stop 38) while the same tests
  had passed minutes before in the default leg. A hang of the browser is not a verdict on the
  page; a second hang fails the test, so a page that really hangs Chromium still fails.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage")
TIMEOUT = 90.0


def chromium(profile: Path, url: str, *args: str) -> str:
    """Run headless Chromium on `url` with a fresh profile under `profile`; its stdout (the DOM
    with `--dump-dom`). Raises CalledProcessError on a failing exit, TimeoutExpired after two
    hangs."""
    for attempt in (1, 2):
        command = [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}-{attempt}", *args, url]
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            if attempt == 2:
                raise
            continue
        if proc.returncode != 0:
            raise subprocess.CalledProcessError(proc.returncode, command, out, err)
        return out
    raise AssertionError("unreachable")
