"""Request and response schemas, one module per endpoint family."""
