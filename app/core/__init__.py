"""The pure planning engine: plain functions over frozen values, no I/O, no web framework, no clock."""
