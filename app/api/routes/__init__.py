"""The routes, one module per endpoint family, and the one list the app is assembled from.

`include_routes` is the only way into this package from outside `app.api.routes`: the app
(`app.main.create_app`) calls it, and nothing else imports a route module. The routes only read the
body, call the use case (`app.service`, through `app.api.answers`), serialize and count metrics.
"""

from __future__ import annotations

from fastapi import FastAPI

from app.api.routes import cap, kept, offer, recall, service, viewer, window

ROUTERS = (
    window.router,
    cap.router,
    offer.router,
    recall.router,
    kept.router,
    service.router,
    viewer.router,
)


def include_routes(app: FastAPI) -> None:
    """Every router of the service, and the static files the Swagger UI and the viewer load."""
    for router in ROUTERS:
        app.include_router(router)
    app.mount(service.ASSETS_PATH, service.swagger_assets(), name="swagger-assets")
    app.mount(viewer.ASSETS_PATH, viewer.viewer_assets(), name="viewer-assets")
