"""`report --engine spark`: the runs.parquet files read by Spark, a tally per partition made on
the executors (campaign/report/aggregate.py) and merged here."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from campaign import spark_session
from campaign.report.aggregate import Tally


def tally_spark(paths: list[str], dirs: list[str], *, master: str | None = None) -> dict[str, Any]:
    """`report --engine spark`: read the runs.parquet files with Spark, tally each partition on
    an executor (campaign.aggregate.Tally) and merge the tallies here."""
    from pyspark.sql import functions as sf  # optional dependency: only on --engine spark

    spark = spark_session.session(master)
    frames = [spark.read.parquet(p).withColumn("dir", sf.lit(d)) for p, d in zip(paths, dirs, strict=True)]
    df = frames[0]
    for other in frames[1:]:
        df = df.unionByName(other, allowMissingColumns=True)

    def part(rows: Iterator[Any]) -> Iterator[Tally]:
        yield Tally.of(r.asDict() for r in rows)

    tallies = df.rdd.mapPartitions(part).collect()
    total = Tally()
    for t in tallies:
        total.merge(t)
    return total.summary()


__all__ = ["tally_spark"]
