# syntax=docker/dockerfile:1
# Build stage: wheels are built here, where compilers may exist; none of it reaches the final image.
# Bookworm: its Rust crates (PyO3 0.17.3) are the ones compiled_reader/Cargo.lock names.
FROM python:3.11-slim-bookworm AS build
WORKDIR /src
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        cargo=0.66.0+ds1-1 rustc=1.63.0+dfsg1-2 librust-pyo3-dev=0.17.3-1 \
        librust-sha2-dev=0.10.5-1 \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY app ./app
COPY compiled_reader ./compiled_reader
# The compiled reader from source (crates from Debian's packages, compiled_reader/build.py), required
# here: the image always ships it. The `otel` extra too: traces stay off until the standard OTEL_*
# variables ask for them (docs/observability.md#traces).
RUN python -m venv /opt/venv \
    && /opt/venv/bin/python compiled_reader/build.py --require \
    && /opt/venv/bin/pip install --no-cache-dir ".[otel]" \
    && /opt/venv/bin/python -c "import cwp_compiled_reader"

# Final stage: the virtualenv only, run by an unprivileged user.
FROM python:3.11-slim-bookworm
ENV PATH="/opt/venv/bin:$PATH" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    CWP_HOST=0.0.0.0 \
    CWP_PORT=8080
RUN groupadd --system --gid 10001 planner \
    && useradd --system --uid 10001 --gid planner --no-create-home --shell /usr/sbin/nologin planner
COPY --from=build /opt/venv /opt/venv
USER 10001:10001
EXPOSE 8080
# No curl in a slim image: the health check uses the interpreter that is already there.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["python", "-c", "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=2).status == 200 else 1)"]
# One uvicorn worker (scale with replicas); SIGTERM turns /readyz to 503, drains, then lets
# in-flight requests finish before the process exits.
STOPSIGNAL SIGTERM
CMD ["python", "-m", "app"]
