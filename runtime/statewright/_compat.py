"""Version shims: the same names on Python 3.10 to 3.13, so generated modules need no branching."""

from __future__ import annotations

import enum
import sys
from typing import NoReturn

__all__ = ["StrEnum", "assert_never"]

if sys.version_info >= (3, 11):
    from enum import StrEnum
    from typing import assert_never
else:

    class StrEnum(str, enum.Enum):
        """Backport of :class:`enum.StrEnum`: members are strings and ``str()`` is the value."""

        def __str__(self) -> str:
            return str(self.value)

        def __format__(self, format_spec: str) -> str:
            return str.__format__(str(self.value), format_spec)

    def assert_never(value: NoReturn, /) -> NoReturn:
        """Tell the type checker this line is unreachable; fail loudly if it is reached."""
        raise AssertionError(f"Expected code to be unreachable, but got: {value!r}")
