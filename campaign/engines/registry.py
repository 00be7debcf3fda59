"""Every campaign engine by name: what `--engine` offers (`fuzz`, `mutants`' campaigns).

A new engine (Ray, Dask, ...) is one module with a class of `campaign.engines.base.Engine`'s
shape, constructed from `EngineOptions`, and one line here (docs/extending.md).
"""

from __future__ import annotations

from collections.abc import Callable

from campaign.engines.base import Engine, EngineOptions
from campaign.engines.local import LocalEngine
from campaign.engines.spark import SparkEngine
from campaign.errors import BadInput

ENGINES: dict[str, Callable[[EngineOptions], Engine]] = {
    "local": LocalEngine,
    "spark": SparkEngine,
}
DEFAULT_ENGINE = "local"


def make_engine(name: str, options: EngineOptions) -> Engine:
    """The engine named `name`; BadInput naming the known ones."""
    make = ENGINES.get(name)
    if make is None:
        raise BadInput(f"--engine: unknown engine {name!r} (known: {', '.join(ENGINES)})")
    return make(options)


__all__ = ["DEFAULT_ENGINE", "ENGINES", "make_engine"]
