"""How spec names become Python names; one place, so validation and rendering agree."""

from __future__ import annotations

import re
import sys
from typing import Final

__all__ = [
    "MODULE_NAMES",
    "PARAMETER_NAMES",
    "RUNTIME_IMPORTS",
    "STDLIB_MODULES",
    "TYPE_CHECKING_IMPORTS",
    "TYPING_IMPORTS",
    "camel_case",
    "constant_case",
    "is_identifier",
    "state_set_constant",
    "tag_constant",
]

#: What a generated module may import from ``typing`` and from the runtime. The renderer imports
#: the ones a module uses; validation keeps spec names (imports, payload types) clear of all.
TYPING_IMPORTS: Final = (
    "TYPE_CHECKING",
    "Any",
    "ClassVar",
    "Final",
    "Generic",
    "Literal",
    "NamedTuple",
    "NoReturn",
    "Protocol",
    "TypeAlias",
    "TypedDict",
    "TypeVar",
    "cast",
    "final",
    "overload",
)
#: Runtime names a generated module uses only in annotations: imported for type checkers only,
#: so that importing the module does not load what they need at run time (dataclasses).
TYPE_CHECKING_IMPORTS: Final = (
    "EventInfo",
    "MachineOptions",
    "SendResult",
    "Snapshot",
    "Store",
    "System",
)
RUNTIME_IMPORTS: Final = (
    "ERROR_ROUTE",
    "PREVIOUS",
    "Alternative",
    "Assign",
    "AsyncChartMachine",
    "AsyncMachine",
    "Cancel",
    "Chart",
    "ChartMachine",
    "ChartNode",
    "ChartTransition",
    "DataModel",
    "ErrorRoute",
    "Foreach",
    "GuardFunction",
    "If",
    "Invoke",
    "Log",
    "Machine",
    "MachineSpec",
    "Previous",
    "Raise",
    "Send",
    "StrEnum",
    "assert_never",
    "lookup",
    "require_runtime",
)
#: Parameter names generated functions and methods use.
PARAMETER_NAMES: Final = frozenset(
    {
        "self",
        "cls",
        "context",
        "payload",
        "handlers",
        "state",
        "event",
        "options",
        "active",
        "data",
        "system",
    }
)
#: Every fixed top-level name of a generated module (imports, constants, functions); the
#: per-machine classes and tag constants come on top.
MODULE_NAMES: Final = frozenset(
    {
        "annotations",
        "Awaitable",
        "Container",
        "Mapping",
        *TYPING_IMPORTS,
        *RUNTIME_IMPORTS,
        *TYPE_CHECKING_IMPORTS,
        "GENERATOR_VERSION",
        "SPEC_PATH",
        "SPEC_SHA256",
        "SPEC_HASH",
        "ContextT",
        "ContextT_contra",
        "INITIAL_STATE",
        "FINAL_STATES",
        "TAGS",
        "TRANSITIONS",
        "SPEC",
        "allowed_events",
        "transition_targets",
        "is_final",
        "_S",
        "_E",
        "_ALLOWED_EVENTS",
        "_TRANSITION_TARGETS",
        "_TRANSITION_LINES",
        "_ALTERNATIVE_GUARDS",
        "_ALTERNATIVE_ACTIONS",
        "_CHECKPOINT_ALTERNATIVES",
        "_transition_table",
        "_match_allowed_events",
        "CHART",
        "_match_transition_targets",
        "_ChildrenHandlers",
        "_ChildrenAsyncHandlers",
        # Parameters of generated functions and methods: an import of the same name would be
        # shadowed by them (pyflakes' F811).
        *PARAMETER_NAMES,
    }
)

#: Top-level modules of the standard library on every supported Python (3.10 to 3.13): where
#: the generated module sorts an ``[imports]`` entry. The names some versions lack are added so
#: that the output does not depend on the interpreter running the compiler.
STDLIB_MODULES: Final = frozenset(sys.stdlib_module_names) | {
    "aifc", "asynchat", "asyncore", "audioop", "binhex", "cgi", "cgitb", "chunk", "crypt",
    "distutils", "imghdr", "imp", "lib2to3", "mailcap", "msilib", "nis", "nntplib",
    "ossaudiodev", "pipes", "smtpd", "sndhdr", "spwd", "sunau", "telnetlib", "tomllib", "uu",
    "xdrlib",
}  # fmt: skip

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


def state_set_constant(state: str) -> str:
    """``waiting`` -> ``IN_WAITING``: the frozenset of the leaves below a compound state."""
    return f"IN_{constant_case(state)}"


def tag_constant(tag: str) -> str:
    """``awaiting_input`` -> ``TAG_AWAITING_INPUT``: the frozenset of a tag's states."""
    return f"TAG_{constant_case(tag)}"
