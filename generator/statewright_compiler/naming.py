"""How spec names become Python names; one place, so validation and rendering agree."""

from __future__ import annotations

import re

__all__ = ["camel_case", "constant_case", "is_identifier"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def is_identifier(text: str) -> bool:
    """ASCII identifiers only: generated names must read the same in every editor and font."""
    return _IDENTIFIER.fullmatch(text) is not None


def camel_case(name: str) -> str:
    """``TOOL_CALL_DONE`` or ``tool_call_done`` -> ``ToolCallDone``."""
    return "".join(part[:1].upper() + part[1:].lower() for part in name.split("_") if part)


def constant_case(name: str) -> str:
    """``PegasusTask`` -> ``PEGASUS_TASK``: the name of module-level constants."""
    return _WORD_BOUNDARY.sub("_", name).upper()
