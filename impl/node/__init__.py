"""A cluster node: its local log, its log fetcher, and (when a member) its CMS role."""
