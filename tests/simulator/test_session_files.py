"""Files the agent sends are stored without holding the event loop that paces the persona's media
(issue 14, item 6: a 50 MB push stored on the loop made audio frames late)."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

from modylbench.channels import InProcessMeeting, SharedDocument, VirtualClock
from modylbench.personas import AgentActivity
from modylbench.record import attachment_path
from modylbench.simulator._session import AgentEventRecorder, SessionRecorder


async def test_a_large_file_is_stored_while_the_loop_keeps_running(tmp_path: Path) -> None:
    clock = VirtualClock()
    link = InProcessMeeting(clock)
    rec = SessionRecorder(tmp_path, link.clock)
    pump = AgentEventRecorder(link, rec, SharedDocument(), AgentActivity())
    data = os.urandom(50 * 1024 * 1024)
    store = asyncio.ensure_future(pump.store(data, "application/octet-stream"))
    ticks = 0
    while not store.done():
        await asyncio.sleep(0)
        ticks += 1
    att = store.result()
    assert ticks > 1, "storing 50 MB held the event loop until it was done"
    # Work the loop cannot see holds a virtual clock still, so no meeting time passed meanwhile.
    assert clock.now() == 0.0
    assert att.sha256 == hashlib.sha256(data).hexdigest() and att.size == len(data)
    assert attachment_path(tmp_path, att).read_bytes() == data
    small = await pump.store(b"a,b\n1,2\n", "text/csv")
    assert attachment_path(tmp_path, small).read_bytes() == b"a,b\n1,2\n"
    rec.writer.close()
