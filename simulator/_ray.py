"""Sweep cells as Ray tasks: one fresh worker process per session, its folder written on the worker and
shipped back as a tarball (or written to a shared path), gathered as they finish; a dead node's cells run again.
"""

from __future__ import annotations

import io
import logging
import os
import shutil
import socket
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from modylbench.simulator._batch import Outcome, run_cell_here
from modylbench.simulator._errors import UserError
from modylbench.simulator._sweep import MEETING_CPUS, RaySettings

logger = logging.getLogger(__name__)

_WAIT_SECONDS = 5.0


def _folder_size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def cell_task(spec: Any, panel: list[str], shared: str | None, max_bytes: int) -> dict[str, Any]:
    """Body of the Ray task: play and score one cell; return its outcome and, without a shared path, its folder.

    A UserError (a bad agent spec, say) comes back as such so the sweep stops with its one line.
    """
    name = spec.folder.name
    scratch = None
    if shared is not None:
        folder = Path(shared) / name
    else:
        scratch = Path(tempfile.mkdtemp(prefix="modylbench-cell-"))
        folder = scratch / name
    try:
        try:
            outcome = run_cell_here(replace(spec, folder=folder), panel)
        except UserError as exc:
            return {"name": name, "user_error": str(exc), "exit_code": exc.exit_code}
        except Exception as exc:  # noqa: BLE001 - reported as the cell's failure; its partial folder still ships
            logger.exception("cell %s failed on this worker", name)
            outcome = Outcome(name, error=repr(exc)[:500], failure_kind="infrastructure_error")
        reply: dict[str, Any] = {"name": name, "outcome": outcome.__dict__, "tar": None}
        if scratch is not None and folder.exists():
            size = _folder_size(folder)
            if size > max_bytes:
                reply["outcome"]["failure_kind"] = "infrastructure_error"
                reply["outcome"]["error"] = (
                    f"the session folder is {size / 1e6:.0f} MB, over max_folder_mb "
                    f"{max_bytes / 1e6:.0f}: use [ray] shared_path"
                )
            else:
                buf = io.BytesIO()
                with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=1) as tar:
                    tar.add(folder, arcname=name)
                reply["tar"] = buf.getvalue()
        return reply
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def unpack(tar_bytes: bytes, name: str, out: Path) -> Path:
    """Put a shipped session folder at OUT/<name>: extracted beside it, then renamed into place."""
    staging = Path(tempfile.mkdtemp(prefix=f".incoming-{name[:40]}-", dir=out))
    try:
        with tarfile.open(fileobj=io.BytesIO(tar_bytes), mode="r:gz") as tar:
            # The "data" filter refuses absolute paths, links out of the folder and device files.
            tar.extractall(staging, filter="data")
        src, dest = staging / name, out / name
        if not src.is_dir():
            raise ValueError(f"the shipped archive holds no folder {name!r}")
        if dest.exists():  # an attempt the driver gave up on came back after all: keep both, never overwrite
            dest = dest.with_name(f"{name}.duplicate-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}")
        os.replace(src, dest)
        return dest
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def check_address(address: str) -> None:
    """A HOST:PORT nobody listens on is one line now, not Ray's minutes of retries."""
    if address == "auto" or "://" in address or ":" not in address:
        return
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=5):
            pass
    except ValueError:
        raise UserError(f"--ray {address}: not HOST:PORT, auto or ray://HOST:PORT") from None
    except OSError as exc:
        raise UserError(f"--ray {address}: no Ray head answers there ({exc.strerror or exc})") from None


def _connect(address: str) -> Any:
    try:
        import ray
    except ImportError:
        raise UserError("--ray needs Ray: pip install 'modylbench[ray]'") from None
    check_address(address)
    if not ray.is_initialized():
        try:
            # The driver's logs stay on this terminal's stderr only when asked (-v); Ray's own are in its temp dir.
            ray.init(address=address, log_to_driver=False, configure_logging=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise UserError(f"--ray {address}: cannot connect to the cluster ({first})") from None
    return ray


def _check_cluster(ray: Any, address: str, pending: int) -> None:
    """Between results: a cluster that is gone (head down, every node dead) ends the sweep instead of a wait
    without end; the cells not finished are redone by the next sweep."""
    try:
        alive = [n for n in ray.nodes() if n.get("Alive")]
    except Exception as exc:  # noqa: BLE001 - whatever the client raises, the cluster cannot be reached
        raise UserError(
            f"--ray {address}: lost the cluster with {pending} cells unfinished ({exc!r:.200}); "
            "sweep again to finish them",
            exit_code=1,
        ) from None
    if not alive:
        raise UserError(
            f"--ray {address}: no node of the cluster is alive, {pending} cells unfinished; "
            "sweep again to finish them",
            exit_code=1,
        )


def run_on_ray(
    todo: list[Any],
    panel: list[str],
    settings: RaySettings,
    out: Path,
    on_done: Callable[[Any, Outcome], None],
) -> None:
    """Submit every cell, then gather them as they finish (``ray.wait``); a cell whose worker or node died is
    retried by Ray up to ``max_retries`` times, then by this loop as often again; finished cells are on disk
    the moment they arrive."""
    ray = _connect(str(settings.address))
    realtime = settings.realtime_resource in ray.cluster_resources()
    if any(s.transport == "webrtc" for s in todo) and not realtime:
        logger.warning(
            "the cluster declares no %r resource: real-time meetings are bounded by num_cpus only "
            "(docs/scale.md)",
            settings.realtime_resource,
        )
    # max_calls=1: every session gets a fresh worker process (process isolation; no state carried over).
    task = ray.remote(max_calls=1)(cell_task)
    shared = settings.shared_path
    if shared is None and not out.is_absolute():
        out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    max_bytes = settings.max_folder_mb * 1_000_000

    def submit(spec: Any) -> Any:
        options: dict[str, Any] = {
            "num_cpus": settings.num_cpus or MEETING_CPUS[spec.transport],
            "max_retries": settings.max_retries,
            "retry_exceptions": False,
        }
        if spec.transport == "webrtc" and realtime:
            options["resources"] = {settings.realtime_resource: 1}
        if settings.memory_mb:
            options["memory"] = settings.memory_mb * 1024 * 1024
        return task.options(**options).remote(spec, panel, shared, max_bytes)

    pending: dict[Any, Any] = {}
    attempts: dict[str, int] = {}
    started: dict[str, float] = {}
    for spec in todo:
        pending[submit(spec)] = spec
        attempts[spec.folder.name] = 1
        started[spec.folder.name] = time.monotonic()
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=_WAIT_SECONDS)
        if not ready:
            _check_cluster(ray, str(settings.address), len(pending))
        for ref in ready:
            spec = pending.pop(ref)
            name = spec.folder.name
            try:
                reply = ray.get(ref)
            except ray.exceptions.RayError as exc:
                # Ray's own retries are spent (the node or worker died each time): try again from here.
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
                if attempts[name] <= settings.max_retries:
                    logger.warning("cell %s lost (%s); submitting it again", name, first)
                    attempts[name] += 1
                    pending[submit(spec)] = spec
                    continue
                on_done(
                    spec,
                    Outcome(
                        name, seconds=time.monotonic() - started[name], error=first, attempts=attempts[name],
                        failure_kind="worker_lost",
                    ),
                )
                continue
            if "user_error" in reply:
                for other in pending:
                    ray.cancel(other, force=True)
                raise UserError(reply["user_error"], reply.get("exit_code", 2))
            outcome = Outcome(**reply["outcome"])
            outcome.attempts = attempts[name]
            if reply.get("tar") is not None:
                try:
                    unpack(reply["tar"], name, out)
                except (OSError, ValueError, tarfile.TarError) as exc:
                    outcome.error = f"could not unpack the shipped folder: {exc}"
                    outcome.failure_kind = "infrastructure_error"
            on_done(spec, outcome)
