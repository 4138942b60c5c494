"""The HTTP layer: routers, request and response schemas, error handlers."""
