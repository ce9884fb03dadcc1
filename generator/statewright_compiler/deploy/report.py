"""A :class:`~diff.SpecDiff` printed: as text (one change per line, grouped by class, then the
version verdict) or as JSON (format ``statewright.diff/1``, documented in docs/diff.md)."""

from __future__ import annotations

import json
from typing import Any, Final

from statewright_compiler.deploy.changes import ChangeClass
from statewright_compiler.deploy.diff import SpecDiff

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
    return "\n".join(lines) + "\n"


def diff_json(diff: SpecDiff, old: str, new: str) -> str:
    def side(source: str, version: int, name: str) -> dict[str, Any]:
        return {"source": source, "machine": name, "version": version}

    document = {
        "format": DIFF_FORMAT,
        "old": side(old, diff.old.version, diff.old.name),
        "new": side(new, diff.new.version, diff.new.name),
        "changes": [
            {"class": c.change_class.value, "kind": c.kind, "path": c.path, "message": c.message}
            for c in diff.changes
        ],
        "summary": {
            **{c.value: len(diff.of_class(c)) for c in _ORDER},
            "bump_required": diff.bump_required,
            "bumped": diff.bumped,
        },
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
