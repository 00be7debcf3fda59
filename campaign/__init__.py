"""Command line, file formats, fuzzing campaigns and the Spark pipeline around the core packages."""
