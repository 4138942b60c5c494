"""The use cases: a parsed request in, the answer's content out, with no HTTP in between.

Each module here is one endpoint's use case (`plan`, `offer`, `cap`, `kept`): it reads the parsed
body through the request schemas (`app.schemas`), calls the core (`app.core`) and returns the
answer's content in the key order of docs/rules.md, with what the HTTP layer counts beside it. It
knows no web framework: the routes (`app.api.routes`) serialize its content and count metrics, and
the audit and the benchmark call it directly.
"""
