"""The real server for the end-to-end tests: `python -m app`, as `make run` starts it, on a port
the kernel picks.

`CWP_PORT=0` makes uvicorn bind an ephemeral port, so no test picks a port that something else
can take between the check and the bind. The start-up banner prints the settings, so it says port
0; the port is read back from the kernel instead: the one listening TCP socket among the server
process's own file descriptors (`/proc/<pid>/fd`, matched by inode in `/proc/<pid>/net/tcp` and
`tcp6`). That holds whatever the log level and format, and involves no parsing of log text.
Without a readable `/proc` (not Linux), uvicorn's own start-up line, `Uvicorn running on
http://127.0.0.1:PORT`, logged at info level with the bound port, is read from stderr instead.
The server counts as started once `/readyz` answers 200.

Nothing here sleeps for a fixed time: every wait polls its condition until a deadline
(`wait_until`).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

import httpx
import orjson

HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parents[2]
PROC = Path("/proc")

START_SECONDS = 30.0
STOP_SECONDS = 60.0
POLL_SECONDS = 0.02

# Socket states in /proc/net/tcp (include/net/tcp_states.h).
ESTABLISHED = "01"
LISTEN = "0A"

UVICORN_RUNNING = re.compile(r"Uvicorn running on https?://\S+:(\d+)")

T = TypeVar("T")


class ServerExited(RuntimeError):
    """The server process ended while it was being waited on."""


def wait_until(
    condition: Callable[[], T], what: str, timeout: float = 10.0, interval: float = POLL_SECONDS
) -> T:
    """The first truthy value of `condition()`, polled every `interval` seconds; an
    AssertionError naming `what` once `timeout` seconds have passed without one."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"gave up after {timeout} s waiting for {what}")
        time.sleep(interval)


@dataclass(frozen=True)
class TcpSocket:
    state: str
    local_port: int
    remote_port: int


def socket_inodes(pid: int) -> set[int]:
    """The inodes of the sockets process `pid` has open (OSError when /proc cannot tell)."""
    inodes: set[int] = set()
    for fd in (PROC / str(pid) / "fd").iterdir():
        try:
            target = os.readlink(fd)
        except FileNotFoundError:  # closed while we looked
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[len("socket:[") : -1]))
    return inodes


def tcp_sockets(pid: int) -> list[TcpSocket]:
    """The TCP sockets (IPv4 and IPv6) that process `pid` holds, from /proc."""
    inodes = socket_inodes(pid)
    found = []
    for table in ("tcp", "tcp6"):
        try:
            rows = (PROC / str(pid) / "net" / table).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        for row in rows:
            # sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout
            # inode ...; addresses are HEXADDR:HEXPORT
            fields = row.split()
            if int(fields[9]) in inodes:
                found.append(
                    TcpSocket(
                        state=fields[3],
                        local_port=int(fields[1].rsplit(":", 1)[1], 16),
                        remote_port=int(fields[2].rsplit(":", 1)[1], 16),
                    )
                )
    return found


def proc_readable(pid: int) -> bool:
    try:
        socket_inodes(pid)
    except OSError:
        return False
    return True


def _collect(stream: IO[str], lines: list[str]) -> None:
    """Read a pipe to its end, so the server never blocks on a full one."""
    for line in iter(stream.readline, ""):
        lines.append(line)
    stream.close()


class Server:
    """`python -m app` on an ephemeral loopback port, with its stdout and stderr collected."""

    def __init__(self, env: Mapping[str, str] | None = None, **more_env: str) -> None:
        environment = {
            **os.environ,
            "CWP_HOST": HOST,
            "CWP_PORT": "0",
            **(env or {}),
            **more_env,
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app"],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._out: list[str] = []
        self._err: list[str] = []
        self._readers = [
            threading.Thread(target=_collect, args=(self.process.stdout, self._out), daemon=True),
            threading.Thread(target=_collect, args=(self.process.stderr, self._err), daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        self.port = 0
        self.url = ""
        try:
            self.port = wait_until(self._bound_port, "the server to bind a port", START_SECONDS)
            self.url = f"http://{HOST}:{self.port}"
            wait_until(self._ready, "/readyz to answer 200", START_SECONDS)
        except (AssertionError, ServerExited) as error:
            _, err = self.stop()
            raise RuntimeError(f"the server did not start: {error}\n{err}") from None

    # ---- reading the server's state ----

    @property
    def pid(self) -> int:
        return self.process.pid

    def _require_running(self) -> None:
        if self.process.poll() is not None:
            raise ServerExited(f"the server exited with {self.process.returncode}")

    def _bound_port(self) -> int | None:
        self._require_running()
        if proc_readable(self.pid):
            try:
                held = tcp_sockets(self.pid)
            except OSError:  # the process went away while we looked: the next poll says so
                return None
            listening = {s.local_port for s in held if s.state == LISTEN}
            if len(listening) > 1:
                raise AssertionError(f"the server listens on several ports: {listening}")
            return listening.pop() if listening else None
        for line in list(self._err):
            found = UVICORN_RUNNING.search(line)
            if found:
                return int(found.group(1))
        return None

    def _ready(self) -> bool:
        self._require_running()
        try:
            return httpx.get(self.url + "/readyz", timeout=1).status_code == 200
        except httpx.TransportError:
            return False

    def has_accepted(self, *clients: socket.socket) -> bool:
        """Whether the server has accepted the connection of each of `clients` (it holds a socket
        whose far end is that client's port). Without /proc: whether a request on a fresh
        connection is answered, which the server does only after accepting those made before."""
        if not proc_readable(self.pid):
            with socket.create_connection((HOST, self.port), timeout=10) as probe:
                probe.sendall(b"GET /healthz HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n")
                return probe.recv(16).startswith(b"HTTP/1.1")
        ports = {client.getsockname()[1] for client in clients}
        held = {s.remote_port for s in tcp_sockets(self.pid) if s.state == ESTABLISHED}
        return ports <= held

    def wait_accepted(self, *clients: socket.socket, timeout: float = 10.0) -> None:
        wait_until(lambda: self.has_accepted(*clients), "the server to accept", timeout)

    def memory_kib(self) -> dict[str, int]:
        """VmHWM (peak RSS) and VmRSS of the server process, in KiB."""
        found: dict[str, int] = {}
        for line in (PROC / str(self.pid) / "status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("VmHWM", "VmRSS"):
                found[name] = int(value.split()[0])
        return found

    def output(self) -> tuple[str, str]:
        """What the server has written so far to stdout and stderr."""
        return "".join(self._out), "".join(self._err)

    # ---- stopping ----

    def stop(self) -> tuple[str, str]:
        """SIGTERM (unless it has already ended), wait for the exit, and return everything the
        server wrote to stdout and stderr."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for reader in self._readers:
            reader.join(timeout=10)
        return self.output()


# A small plan the reliability tests send again and again: one tool round, a window of one turn.
PLAN_BODY = orjson.dumps(
    {
        "messages": [
            {"role": "user", "content": "Find the hottest rack."},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "measure"}]},
            {"role": "tool", "tool_call_id": "c1", "tool_name": "measure", "content": "41C"},
        ],
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 1},
    }
)
