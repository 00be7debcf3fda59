"""Campaign reports: tallies of runs.parquet files (`aggregate`), the HTML page (`html`), and the
tally on Spark (`spark_tally`). Nothing here loads the simulator or the prover: a report only
reads what campaigns recorded."""
