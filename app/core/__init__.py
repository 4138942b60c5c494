"""The pure planning engine: plain functions over frozen values; no I/O, web framework or clock."""
