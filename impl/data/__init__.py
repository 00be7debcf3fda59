"""The data path: client reads and writes through coordinators and replicas (pure parts)."""
