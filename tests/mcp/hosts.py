"""What the servers under test import (``--handlers`` / ``--context``): the approval workflow's
handlers and contexts from examples/approval_demo.py, plus a context whose retries never run out,
so that ``APPLY_RESULT`` with ``success: false`` is a self-transition a test can send forever."""

from __future__ import annotations

from approval_demo import Engine, Request

__all__ = ["handlers", "patient_context", "raising_context"]


def handlers(machine_class: type) -> Engine:
    return Engine()


def patient_context(machine_class: type) -> Request:
    return Request(max_retries=1_000_000)


def raising_context(machine_class: type) -> Request:
    raise RuntimeError("no context today")
