"""The OpenAPI document: request bodies read by hand, documented from their pydantic models.

Body routes parse and validate inside the deadline-guarded worker (`app.api.deadline`), so FastAPI
never sees their body parameter; `documented_body` puts the model's schema and Swagger examples into
the operation instead, and `build_openapi` adds those models to the components.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel

_BODY_MODELS: dict[str, type[BaseModel]] = {}
# path → a loader of the 200 answer's examples, read when the document is built (not at import,
# so regenerating the committed answers and then the document is one command).
_ANSWER_EXAMPLES: dict[str, Callable[[], dict[str, Any]]] = {}


def register_schema(model: type[BaseModel]) -> None:
    """Put `model` into the document's components (for schemas referenced by hand)."""
    _BODY_MODELS[model.__name__] = model


def documented_body(
    model: type[BaseModel], examples: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """`openapi_extra` for a route whose JSON body is `model`."""
    _BODY_MODELS[model.__name__] = model
    media: dict[str, Any] = {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}
    if examples:
        media["examples"] = examples
    return {"requestBody": {"required": True, "content": {"application/json": media}}}


def documented_answers(path: str, loader: Callable[[], dict[str, Any]]) -> None:
    """Show the examples `loader` returns as the 200 answers of the POST operation at `path`."""
    _ANSWER_EXAMPLES[path] = loader


def build_openapi(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI document with every documented body model in its components."""
    if app.openapi_schema:
        return app.openapi_schema
    spec = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
        tags=app.openapi_tags,
    )
    schemas = spec.setdefault("components", {}).setdefault("schemas", {})
    # Only the models this app's routes reference (and what those reference): a model registered
    # by a module that another app imported must not leak into this document.
    pending = _referenced_names(spec["paths"]) & _BODY_MODELS.keys()
    while pending:
        name = pending.pop()
        schema = _BODY_MODELS[name].model_json_schema(
            ref_template="#/components/schemas/{model}", mode="validation"
        )
        for def_name, definition in schema.pop("$defs", {}).items():
            schemas.setdefault(def_name, definition)
        schemas[name] = schema
        pending |= (_referenced_names(schema) & _BODY_MODELS.keys()) - schemas.keys()
    spec["components"]["schemas"] = dict(sorted(schemas.items()))
    for path, loader in _ANSWER_EXAMPLES.items():
        operation = spec["paths"].get(path, {}).get("post")
        if operation is not None:
            media = operation["responses"]["200"]["content"]["application/json"]
            media["examples"] = loader()
    app.openapi_schema = spec
    return spec


def _referenced_names(node: Any) -> set[str]:
    """Names of the component schemas that `node` references."""
    found: set[str] = set()
    stack = [node]
    prefix = "#/components/schemas/"
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith(prefix):
                found.add(ref[len(prefix) :])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
