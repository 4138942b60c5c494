"""`python -m bench.serve`: the benchmark's app, served exactly as `python -m app` serves the real
one (same uvicorn options, from the same `CWP_` settings, the same collector policy, through a
factory), so over-HTTP figures are the deployed server's."""

from app.__main__ import main

if __name__ == "__main__":
    main("bench.app:create_bench_app", factory=True)
