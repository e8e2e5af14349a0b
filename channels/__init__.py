"""Live transport: the meeting clock abstraction, the harness-side channel interface and its transports."""

from modylbench.channels._clock import Clock, ClockTimeout, VirtualClock, WallClock, wait_for

__all__ = ["Clock", "ClockTimeout", "VirtualClock", "WallClock", "wait_for"]
