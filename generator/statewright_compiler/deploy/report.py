"""A :class:`~diff.SpecDiff` printed: as text (one change per line, grouped by class, then the
version verdict and, when stored instances restore as they are, the old spec's fingerprint to
declare compatible) or as JSON (format ``statewright.diff/1``, documented in docs/diff.md)."""

from __future__ import annotations

import json
from typing import Any, Final

from statewright_compiler.deploy.changes import ChangeClass
from statewright_compiler.deploy.diff import SpecDiff
from statewright_compiler.model import Machine
from statewright_compiler.model.fingerprint import fingerprint as spec_fingerprint

__all__ = ["DIFF_FORMAT", "diff_json", "diff_text"]

DIFF_FORMAT: Final = "statewright.diff/1"

_ORDER: Final = (ChangeClass.BREAKING, ChangeClass.NEEDS_MIGRATION, ChangeClass.COMPATIBLE)


def diff_text(diff: SpecDiff, old: str, new: str) -> str:
    lines = [f"statewright diff {old} {new} ({diff.new.name})"]
    for change_class in _ORDER:
        changes = diff.of_class(change_class)
        if changes:
            lines.append(f"{change_class.value} ({len(changes)}):")
            lines += [f"  {c.kind} {c.path}: {c.message}" for c in changes]
    if not diff.changes:
        lines.append("no changes")
    counts = ", ".join(f"{len(diff.of_class(c))} {c.value}" for c in _ORDER)
    lines.append(f"{counts}; {diff.version_verdict}")
    fingerprint = diff.compatible_fingerprint
    if fingerprint is not None:
        lines.append(
            f"fingerprint: {fingerprint} is now {spec_fingerprint(diff.new)}: stored instances "
            f"restore with MachineOptions(compatible_fingerprints={{{fingerprint!r}}})"
        )
    return "\n".join(lines) + "\n"


def diff_json(diff: SpecDiff, old: str, new: str) -> str:
    def side(source: str, machine: Machine) -> dict[str, Any]:
        return {
            "source": source,
            "machine": machine.name,
            "version": machine.version,
            "fingerprint": spec_fingerprint(machine),
        }

    document = {
        "format": DIFF_FORMAT,
        "old": side(old, diff.old),
        "new": side(new, diff.new),
        "changes": [
            {"class": c.change_class.value, "kind": c.kind, "path": c.path, "message": c.message}
            for c in diff.changes
        ],
        "summary": {
            **{c.value: len(diff.of_class(c)) for c in _ORDER},
            "bump_required": diff.bump_required,
            "bumped": diff.bumped,
            "compatible_fingerprint": diff.compatible_fingerprint,
        },
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
