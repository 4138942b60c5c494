"""What a route receives from the app: its settings, metrics, lifecycle and the request's body.

Routes declare these as parameters (`settings: SettingsDep`, `metrics: MetricsDep`,
`core: PlanCoreDep`, `body: JsonBody`) instead of reading `request.app.state` themselves, so each
route says in its signature what it uses, and the app's state is read in this one module.

Each is `async def` although it never awaits: FastAPI runs a plain `def` dependency in a worker
thread, and with those hops (eight per plan request) a 50-message plan took 1.11 ms in process
and the bare benchmark endpoint 0.48 ms; without them, 0.44 and 0.18 ms.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.api.body import ReceivedBody, read_body, require_json_content_type
from app.api.deadline import WorkSlots
from app.api.metrics import Metrics
from app.lifecycle import Lifecycle
from app.service.plan import PlanCore
from app.settings import Settings


async def app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def app_metrics(request: Request) -> Metrics:
    metrics: Metrics = request.app.state.metrics
    return metrics


async def app_plan_core(request: Request) -> PlanCore:
    """The core's plan entry point the app was built with (`create_app(plan_core=...)`)."""
    core: PlanCore = request.app.state.plan_core
    return core


async def app_lifecycle(request: Request) -> Lifecycle:
    lifecycle: Lifecycle = request.app.state.lifecycle
    return lifecycle


def large_body_slots(request: Request) -> WorkSlots:
    """The app's slots for work on large bodies, made on first use."""
    state = request.app.state
    slots: WorkSlots | None = getattr(state, "large_body_slots", None)
    if slots is None:
        slots = state.large_body_slots = WorkSlots(state.settings.large_body_slots)
    return slots


SettingsDep = Annotated[Settings, Depends(app_settings)]
MetricsDep = Annotated[Metrics, Depends(app_metrics)]
LifecycleDep = Annotated[Lifecycle, Depends(app_lifecycle)]
PlanCoreDep = Annotated[PlanCore, Depends(app_plan_core)]


async def receive_json_body(request: Request, settings: SettingsDep) -> ReceivedBody:
    """415 unless the body is JSON, then the body read whole (parsed when worked on)."""
    require_json_content_type(request.headers.get("content-type"))
    body = await read_body(request)
    return ReceivedBody([body], settings, lambda: large_body_slots(request))


JsonBody = Annotated[ReceivedBody, Depends(receive_json_body)]
