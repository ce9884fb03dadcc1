"""A handlers object bound to a spec: each guard, action and delay handler the spec names, looked
up once per machine (a missing one is a clear ``TypeError`` naming every one missing, before
anything runs)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from statewright._spec import MachineSpec

__all__ = ["bind_handlers"]


def bind_handlers(spec: MachineSpec[Any, Any], handlers: object | None) -> dict[str, Any]:
    """Bound handler methods by name; a clear TypeError names every missing one."""
    names = sorted(spec.handler_names)
    if handlers is None:
        if names:
            raise TypeError(f"{spec.name} needs a handlers object with methods: {', '.join(names)}")
        return {}
    calls: dict[str, Any] = {}
    missing = []
    for name in names:
        method = getattr(handlers, name, None)
        if callable(method):
            calls[name] = method
        else:
            missing.append(name)
    if missing:
        raise TypeError(
            f"{type(handlers).__name__} is missing handler methods required by {spec.name}: "
            f"{', '.join(missing)}"
        )
    return calls
