"""The process's one Spark session, made the way a shared machine wants it.

The driver binds to 127.0.0.1 and its web UI is off (unless `ui=True` or a cluster master is
named), the Python workers run the interpreter running tcmcheck (`PYSPARK_PYTHON =
sys.executable`), and the JVM logs only errors. Under `spark-submit` (see
`campaign/spark_submit.py`) the session spark-submit configured is used as it is. Used by the
Spark campaign engine (campaign/engines/spark.py), `report --engine spark`
(campaign/report/spark_tally.py) and `check-history --engine spark`
(campaign/engines/spark_history.py). pyspark is an optional extra (`pip install -e '.[spark]'`):
it is imported only when a session starts, and `check_spark` says how to install it first.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from campaign.errors import BadInput

_SESSION: Any = None
_LOCK = threading.Lock()
STARTUP_SECONDS: float | None = None
"""Wall-clock seconds the last `session()` call took to start Spark (None: not started here)."""

_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark: %p %c{1}: %m%n
"""


def check_java() -> None:
    """Spark needs a JVM: say how to get one, in one line, before anything starts."""
    home = os.environ.get("JAVA_HOME")
    if home and Path(home, "bin", "java").exists():
        return
    if shutil.which("java") is None:
        raise BadInput("--engine spark needs Java 17 and none was found: install it "
                       "(apt-get install openjdk-17-jre-headless) or set JAVA_HOME")


PYSPARK_MISSING = ("--engine spark needs pyspark, an optional extra not installed here: "
                   "pip install pyspark (in a checkout of tcmcheck: pip install -e '.[spark]')")


def check_pyspark() -> None:
    """pyspark is an optional extra (`pip install -e '.[spark]'`): say how to install it, in one
    line, before anything is read or written."""
    try:
        import pyspark  # noqa: F401  (optional dependency: imported only to see it is installed)
    except ImportError:
        raise BadInput(PYSPARK_MISSING) from None


def check_spark() -> None:
    """Everything `--engine spark` needs on this machine (pyspark, and Java unless spark-submit
    started us), checked before any work."""
    check_pyspark()
    if not under_spark_submit():
        check_java()


def under_spark_submit() -> bool:
    return "PYSPARK_GATEWAY_PORT" in os.environ


def session(master: str | None = None, *, parallelism: int | None = None, ui: bool = False) -> Any:
    """The process's SparkSession, started on first use. `master` None: `local[parallelism]`
    (`local[*]` when that is None too)."""
    global _SESSION, STARTUP_SECONDS
    with _LOCK:
        if _SESSION is not None:
            return _SESSION
        if not under_spark_submit():
            check_java()
        try:
            # optional dependency: imported only when a Spark session is asked for
            from pyspark.sql import SparkSession
        except ImportError:
            raise BadInput(PYSPARK_MISSING) from None
        started = time.monotonic()
        os.environ["PYSPARK_PYTHON"] = sys.executable
        os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
        builder = SparkSession.builder.appName("tcmcheck")
        if not under_spark_submit():
            url = master or (f"local[{parallelism}]" if parallelism else "local[*]")
            log4j = Path(tempfile.gettempdir()) / f"tcmcheck-log4j2-{os.getuid()}.properties"
            if not log4j.exists():
                log4j.write_text(_LOG4J)
            builder = (builder.master(url)
                       .config("spark.ui.enabled", "true" if ui else "false")
                       .config("spark.ui.showConsoleProgress", "false")
                       .config("spark.python.worker.reuse", "true")
                       .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{log4j}"))
            if url.startswith("local"):
                # embedded: nothing listens beyond this machine
                builder = (builder.config("spark.driver.bindAddress", "127.0.0.1")
                           .config("spark.driver.host", "127.0.0.1"))
                os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        try:
            spark = _quietly(builder.getOrCreate)
        except Exception as e:  # noqa: BLE001 (py4j and the launcher raise many types)
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise BadInput(f"--engine spark: Spark did not start: {first[:160]} (JVM log: {JVM_LOG})") from None
        spark.sparkContext.setLogLevel("ERROR")
        STARTUP_SECONDS = time.monotonic() - started
        _SESSION = spark
        return spark


JVM_LOG = Path(tempfile.gettempdir()) / f"tcmcheck-spark-{os.getuid()}.log"
"""Where the embedded JVM's own stderr goes (its banner and warnings), not the user's terminal."""


def _quietly(start: Callable[[], Any]) -> Any:
    """Start the JVM with its stderr (inherited by it and its Python workers for good) pointed
    at JVM_LOG: the JVM prints banners and warnings no log setting silences."""
    if under_spark_submit():
        return start()
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        fd = os.open(JVM_LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(fd, 2)
        os.close(fd)
        return start()
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def stop_session() -> None:
    global _SESSION
    with _LOCK:
        if _SESSION is not None:
            _SESSION.stop()
            _SESSION = None


__all__ = ["JVM_LOG", "PYSPARK_MISSING", "check_java", "check_pyspark", "check_spark", "session",
           "stop_session", "under_spark_submit"]
