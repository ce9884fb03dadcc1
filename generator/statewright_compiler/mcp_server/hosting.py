"""The machine types a server hosts: the configured classes, each with its handlers and a way to
make a new instance's context and initial data, imported once at start-up.

Only the ``module:name`` paths of the settings are imported (the machine classes, the handlers
factory, the context factory, the data factory), with the configured folders first on
``sys.path``; nothing a client sends ever names code. A class must be a synchronous generated
machine (the server runs each call in a worker thread); a factory must be callable; the
handlers must have every handler method the spec names. Each problem is a
:class:`~statewright_compiler.config.ConfigError` naming the path, so a wrong configuration
stops the server before a client connects.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from statewright import AsyncMachine, Machine

from statewright_compiler.commands.common import import_named
from statewright_compiler.config import ConfigError
from statewright_compiler.mcp_server.settings import Settings

__all__ = ["MachineType", "hosted_types", "import_named"]


@dataclass(frozen=True)
class MachineType:
    """One served machine class: its spec's name is its name in tools and resources."""

    name: str
    cls: type[Machine[Any, Any, Any]]
    handlers: object | None
    #: A new instance's context.
    new_context: Callable[[], Any]
    #: The generated module's ``SPEC_PATH`` and ``SPEC_SHA256`` (for the docs resources).
    spec_path: str | None
    spec_sha256: str | None
    #: A new instance's initial data (``Machine(..., data=)``; None: the spec's initial values).
    new_data: Callable[[], Mapping[str, Any] | None] = lambda: None

    @property
    def external_events(self) -> tuple[str, ...]:
        """The events a client may send, in the spec's order (internal ones left out: the
        boundary refuses them whatever this says)."""
        spec = self.cls.spec
        internal = spec.internal_events
        return tuple(member.name for member in spec.event_type if member not in internal)


def hosted_types(settings: Settings) -> tuple[MachineType, ...]:
    """Import and check every configured machine class and factory (see the module docstring)."""
    for folder in reversed(settings.path):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    handlers_factory = _factory(settings.handlers, "handlers factory")
    context_factory = _factory(settings.context, "context factory")
    data_factory = _factory(settings.data, "data factory")
    found: dict[str, MachineType] = {}
    for path in settings.machines:
        cls = _machine_class(path)
        name = cls.spec.name
        if name in found:
            raise ConfigError(f"machine {path}: {name} is served already (by {found[name].cls})")
        handlers = _call(handlers_factory, cls, "handlers factory", settings.handlers)
        _check_handlers(cls, handlers, settings.handlers)
        module = sys.modules[cls.__module__]
        found[name] = MachineType(
            name,
            cls,
            handlers,
            _context_maker(context_factory, cls),
            getattr(module, "SPEC_PATH", None),
            getattr(module, "SPEC_SHA256", None),
            _context_maker(data_factory, cls),
        )
    return tuple(found.values())


def _machine_class(path: str) -> type[Machine[Any, Any, Any]]:
    cls = import_named(path, "machine")
    if isinstance(cls, type) and issubclass(cls, AsyncMachine):
        raise ConfigError(
            f"machine {path}: an asyncio machine; serve its synchronous class (the server runs "
            "each call in a worker thread)"
        )
    if not (isinstance(cls, type) and issubclass(cls, Machine) and "spec" in _attributes(cls)):
        raise ConfigError(f"machine {path}: not a generated machine class ({cls!r:.80})")
    return cls


def _attributes(cls: type) -> set[str]:
    return {name for klass in cls.__mro__ for name in vars(klass)}


def _factory(path: str | None, what: str) -> Callable[[Any], Any] | None:
    if path is None:
        return None
    factory = import_named(path, what)
    if not callable(factory):
        raise ConfigError(f"{what} {path}: not callable ({factory!r:.80})")
    return factory  # type: ignore[no-any-return]  # callable() narrowed it to a callable


def _call(factory: Callable[[Any], Any] | None, cls: type, what: str, path: str | None) -> Any:
    if factory is None:
        return None
    try:
        return factory(cls)
    except Exception as error:  # the user's code: report it, do not crash with a traceback
        raise ConfigError(
            f"{what} {path}({cls.__name__}) raised {type(error).__name__}: {error}"
        ) from None


def _check_handlers(cls: type[Machine[Any, Any, Any]], handlers: object, path: str | None) -> None:
    names: Sequence[str] = sorted(cls.spec.handler_names)
    missing = [name for name in names if not callable(getattr(handlers, name, None))]
    if not missing:
        return
    if handlers is None:
        raise ConfigError(
            f"{cls.spec.name} needs handlers ({', '.join(names)}): give --handlers MODULE:NAME "
            'or handlers = "module:name" in [tool.statewright.mcp]'
        )
    raise ConfigError(
        f"handlers factory {path} gave {cls.spec.name} a {type(handlers).__name__} without "
        f"{', '.join(missing)}"
    )


def _context_maker(factory: Callable[[Any], Any] | None, cls: type) -> Callable[[], Any]:
    """What a new instance gets from ``factory`` (its context, or its initial data): called for
    each instance, None without a factory."""

    def new_context() -> Any:
        return None if factory is None else factory(cls)

    return new_context
