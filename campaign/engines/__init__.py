"""Campaign engines: where a campaign's runs run. Each engine is one module with a class that
has the small interface of `campaign.engines.base.Engine`, and one line in
`campaign.engines.registry.ENGINES`; the commands offer every registered name (docs/extending.md).

This package module imports nothing, so that `campaign.engines.base` stays light.
"""
