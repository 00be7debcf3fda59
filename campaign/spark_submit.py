"""Entry module for `spark-submit`: run a tcmcheck command inside a Spark application.

    spark-submit --master spark://HOST:7077 "$(python -c 'import campaign.spark_submit as m; print(m.__file__)')" \\
        fuzz --engine spark --runs 100000 --seed 7 --out /shared/campaign-7

spark-submit starts the JVM and the session (master, executors, resources from its own options);
`campaign.spark_session.session()` then uses that session as it is. The executors need tcmcheck installed
in the same Python (`pip install tcmcheck` or the checkout, and `PYSPARK_PYTHON` pointing at it).
"""

from __future__ import annotations

import sys

from campaign.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
