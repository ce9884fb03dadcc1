"""What the servers under test import (``--handlers`` / ``--context`` / ``--data``): the approval
workflow's handlers and contexts from examples/approval_demo.py, plus initial data whose retries
never run out (``max_retries`` is a data field), so that ``APPLY_RESULT`` with
``success: false`` is a self-transition a test can send forever."""

from __future__ import annotations

from approval_demo import Engine, Request

__all__ = ["handlers", "patient_context", "patient_data", "raising_context", "wrong_data"]


def handlers(machine_class: type) -> Engine:
    return Engine()


def patient_context(machine_class: type) -> Request:
    return Request()


def patient_data(machine_class: type) -> dict[str, int]:
    """The patient instance's initial data: retries that never run out."""
    return {"max_retries": 1_000_000}


def wrong_data(machine_class: type) -> dict[str, str]:
    """Initial data the approval workflow's data model does not take."""
    return {"max_retries": "many"}


def raising_context(machine_class: type) -> Request:
    raise RuntimeError("no context today")
