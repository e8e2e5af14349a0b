"""The documented kernel-level recipe (scripts/netem_namespace.sh, docs/network.md): a namespace of our own
whose loopback delays every packet. Runs where root, ``ip netns`` and the kernel's netem are there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "netem_namespace.sh"
PROBE = """
import socket, time
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); a.bind(("127.0.0.1", 0))
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); b.bind(("127.0.0.1", 0))
t = time.monotonic(); a.sendto(b"x", b.getsockname()); b.recvfrom(10)
print(time.monotonic() - t)
"""


def test_the_netem_recipe_delays_the_namespaces_loopback() -> None:
    if os.geteuid() != 0 or shutil.which("ip") is None or shutil.which("tc") is None:
        pytest.skip("needs root, ip and tc")
    name = f"mb-test-{uuid.uuid4().hex[:8]}"
    up = subprocess.run(["sh", str(SCRIPT), "up", name, "delay 60ms"], capture_output=True, text=True, timeout=30)
    try:
        if up.returncode != 0:
            if "unknown" in up.stderr.lower():
                pytest.skip(f"this kernel has no netem qdisc (sch_netem): {up.stderr.strip()}")
            pytest.fail(f"recipe failed: {up.stderr}")
        out = subprocess.run(["ip", "netns", "exec", name, sys.executable, "-c", PROBE], capture_output=True,
                             text=True, timeout=30, check=True)  # fmt: skip
        assert float(out.stdout) >= 0.055  # one datagram over the namespace's loopback took netem's delay
    finally:
        subprocess.run(["sh", str(SCRIPT), "down", name], capture_output=True, timeout=30)
