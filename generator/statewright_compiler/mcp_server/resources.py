"""The server's resources: each machine type's diagram (Mermaid) and docs page, and each
instance's history.

The diagram and the page are the ones ``statewright diagram`` and ``statewright docs`` write,
compiled from the spec its generated module was made from (the module's ``SPEC_PATH``, under the
project root): this is why the server is part of the compiler's package, and why what a model
reads describes the running machine exactly. A spec edited since its module was generated (its
sha256 is no longer the module's ``SPEC_SHA256``) is refused with the fix, rather than shown for
a machine the server does not run. Each machine is compiled on its first read and kept.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from statewright_compiler.check.validate import compile_spec
from statewright_compiler.diagnostics import SpecError, format_diagnostic
from statewright_compiler.diagrams.mermaid import render_mermaid
from statewright_compiler.docs.page import render_markdown
from statewright_compiler.mcp_server.hosting import MachineType
from statewright_compiler.mcp_server.instances import Instances, ToolError
from statewright_compiler.model import Machine
from statewright_compiler.pipeline import display_path

__all__ = ["HISTORY_TEMPLATE", "Resource", "ResourceMissing", "Resources"]

HISTORY_TEMPLATE: Final = "statewright://instances/{instance_id}/history"
_MACHINES: Final = "statewright://machines/"
_INSTANCES: Final = "statewright://instances/"
#: Resource kind -> (MIME type, what it is).
_KINDS: Final = {
    "diagram": ("text/vnd.mermaid", "state diagram (Mermaid stateDiagram-v2)"),
    "docs": ("text/markdown", "docs page: states, events, transitions, handlers"),
}


class ResourceMissing(LookupError):
    """No such resource, or it cannot be made (the message says which and why)."""


@dataclass(frozen=True)
class Resource:
    uri: str
    name: str
    description: str
    mime_type: str


class Resources:
    """What ``resources/list`` shows and ``resources/read`` returns."""

    def __init__(self, root: Path, types: Sequence[MachineType], instances: Instances) -> None:
        self.root = root
        self.types = {machine_type.name: machine_type for machine_type in types}
        self.instances = instances
        self._compiled: dict[str, Machine] = {}
        self._lock = threading.Lock()

    def listed(self) -> list[Resource]:
        """The diagram and docs page of every machine whose spec is in the project."""
        return [
            Resource(
                f"{_MACHINES}{name}/{kind}",
                f"{name} {kind}",
                f"{name}: {description}",
                mime_type,
            )
            for name, machine_type in self.types.items()
            if self._spec_file(machine_type) is not None
            for kind, (mime_type, description) in _KINDS.items()
        ]

    def read(self, uri: str) -> tuple[str, str]:
        """``(text, MIME type)`` of the resource ``uri``, or :class:`ResourceMissing`."""
        if uri.startswith(_MACHINES):
            name, _, kind = uri.removeprefix(_MACHINES).partition("/")
            machine_type = self.types.get(name)
            if machine_type is None or kind not in _KINDS:
                raise ResourceMissing(f"no resource {uri!r:.120}")
            machine = self._compile(machine_type)
            text = render_mermaid(machine) if kind == "diagram" else render_markdown(machine)
            return text, _KINDS[kind][0]
        if uri.startswith(_INSTANCES) and uri.endswith("/history"):
            instance_id = uri.removeprefix(_INSTANCES).removesuffix("/history")
            try:
                records = self.instances.history_of(instance_id)
            except ToolError as error:
                raise ResourceMissing(error.message) from None
            return json.dumps(records, ensure_ascii=False, indent=1), "application/json"
        raise ResourceMissing(f"no resource {uri!r:.120}")

    def _spec_file(self, machine_type: MachineType) -> Path | None:
        if machine_type.spec_path is None:
            return None
        path = self.root / machine_type.spec_path
        return path if path.is_file() else None

    def _compile(self, machine_type: MachineType) -> Machine:
        with self._lock:
            compiled = self._compiled.get(machine_type.name)
            if compiled is None:
                compiled = self._compiled[machine_type.name] = self._compiled_now(machine_type)
            return compiled

    def _compiled_now(self, machine_type: MachineType) -> Machine:
        path = self._spec_file(machine_type)
        if path is None:
            raise ResourceMissing(
                f"{machine_type.name}: its spec {machine_type.spec_path} is not under {self.root}"
            )
        try:
            machine, _ = compile_spec(path, display_path(path, self.root))
        except SpecError as error:
            problems = "; ".join(format_diagnostic(d) for d in error.diagnostics[:3])
            raise ResourceMissing(
                f"{machine_type.name}: the spec does not compile: {problems}"
            ) from None
        if machine.source_sha256 != machine_type.spec_sha256:
            raise ResourceMissing(
                f"{machine_type.name}: {machine_type.spec_path} changed since "
                f"{machine_type.cls.__module__} was generated: run `statewright generate` and "
                "restart the server"
            )
        return machine
