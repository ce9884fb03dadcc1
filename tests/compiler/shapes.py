"""The two shapes of generated module, for tests that compare them on the same spec.

Machines above ``render.MATCH_LIMIT`` states or events get the large shape (table-backed
dispatch, ``TRANSITIONS`` built at import from tables of member names, one ``send`` signature
per payload shape); :func:`large_shape` renders any machine that way, so small specs with every
feature can show that both shapes give the same tables and the same typed API.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from unittest import mock

from statewright_compiler.codegen import render


@contextlib.contextmanager
def large_shape() -> Iterator[None]:
    """Render every machine in this block as if it were above ``MATCH_LIMIT``."""
    with mock.patch.object(render, "MATCH_LIMIT", 0):
        yield
