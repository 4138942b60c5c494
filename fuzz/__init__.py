"""Coverage-guided fuzzing harnesses (atheris); see `fuzz/fuzz_requests.py`."""
