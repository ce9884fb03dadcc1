"""What a spec's expressions see at run time besides the machine's data: the ``_event`` value
and the system variables (SCXML 5.10), and the one helper generated expressions call.

The compiler prints each expression as Python over four names (``data``, ``event``, ``system``,
``active``); the generated functions are the only code that runs, never the spec's text. An
:class:`EventInfo` is built for each event an expression may look at; a machine's
:class:`System` once, when the first expression needs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Generic, TypeVar

__all__ = [
    "EXTERNAL",
    "INTERNAL",
    "PLATFORM",
    "SCXML_PROCESSOR",
    "UNBOUND",
    "EventInfo",
    "System",
    "lookup",
]

D = TypeVar("D", covariant=True)

#: ``_event.type`` (SCXML 5.10.1).
PLATFORM: Final = "platform"
INTERNAL: Final = "internal"
EXTERNAL: Final = "external"
#: The SCXML event I/O processor's type URI, and its short name.
SCXML_PROCESSOR: Final = "http://www.w3.org/TR/scxml/#SCXMLEventProcessor"


class EventInfo(Generic[D]):
    """The event being processed, as ``_event``: its ``name`` (the event's value), ``type``
    (platform, internal or external), ``sendid`` (the id of the ``send`` that sent it),
    ``origin`` and ``origintype`` (where a reply goes), ``invokeid`` and ``data`` (its payload,
    or what a ``send`` put in it: an empty mapping when nothing did, so that ``_event.data`` is
    always what its payload type says)."""

    __slots__ = ("data", "invokeid", "name", "origin", "origintype", "sendid", "type")

    def __init__(
        self,
        name: str,
        data: D,
        type: str = EXTERNAL,  # SCXML's name for it
        sendid: str | None = None,
        origin: str | None = None,
        origintype: str | None = None,
        invokeid: str | None = None,
    ) -> None:
        self.name = name
        self.data = data
        self.type = type
        self.sendid = sendid
        self.origin = origin
        self.origintype = origintype
        self.invokeid = invokeid

    def __repr__(self) -> str:
        return f"EventInfo({self.name!r}, {self.data!r}, type={self.type!r})"


class _Unbound(EventInfo[Mapping[str, Any]]):
    """``_event`` before the machine processed its first event: SCXML leaves it unbound
    (5.10), so it is false in a condition (``if _event``), and, for the types the compiler
    gives every slot, its ``data`` is an empty mapping and its ``name`` blank."""

    __slots__ = ()

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "UNBOUND"


#: ``_event`` before the first event (see :class:`_Unbound`).
UNBOUND: Final[EventInfo[Mapping[str, Any]]] = _Unbound("", {}, PLATFORM)


class System:
    """A machine's system variables: ``_sessionid`` (its instance id), ``_name`` (the machine's
    name) and ``_ioprocessors`` (where other sessions send it events); and whether a
    ``parent`` machine invoked it (where ``#_parent`` goes)."""

    __slots__ = ("ioprocessors", "name", "parent", "sessionid")

    def __init__(self, sessionid: str, name: str, parent: bool = False) -> None:
        self.sessionid = sessionid
        self.name = name
        self.parent = parent
        location = {"location": f"#_scxml_{sessionid}"}
        self.ioprocessors: dict[str, dict[str, str]] = {
            SCXML_PROCESSOR: location,
            "scxml": dict(location),
        }


def lookup(value: object, name: str) -> Any:
    """``value.name`` in an expression where ``value``'s type is unknown (``Any``): a mapping's
    item (event data is a mapping: ``_event.data.aParam``), else the attribute. A missing one
    raises ``KeyError`` or ``AttributeError``, which the machine turns into ``error.execution``."""
    if isinstance(value, Mapping):
        return value[name]
    if name.startswith("_"):  # the compiler never prints one; refuse it here as well
        raise AttributeError(name)
    return getattr(value, name)
