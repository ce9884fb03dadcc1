"""Step 1 of the pipeline: read a spec file into a TOML document that remembers positions."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from statewright_compiler.diagnostics import Diagnostic, SpecError
from statewright_compiler.spec.limits import MAX_SPEC_BYTES, MAX_TOML_DEPTH, toml_nesting_error
from statewright_compiler.spec.positions import KeyPath, Position, scan_positions
from statewright_compiler.spec.toml_compat import tomllib

__all__ = ["SpecSource", "load_spec", "parse_spec_text"]

_TOML_ERROR_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


@dataclass(frozen=True)
class SpecSource:
    """A parsed spec plus what diagnostics need: its display path and key/value positions."""

    path: str
    text: str
    sha256: str
    document: dict[str, Any]
    value_positions: dict[KeyPath, Position]
    key_positions: dict[KeyPath, Position]

    def locate(self, path: KeyPath, *, key: bool = False) -> Position:
        """Where ``path`` is written: its value (or key), else the nearest enclosing entry."""
        table = self.key_positions if key else self.value_positions
        for length in range(len(path), 0, -1):
            position = table.get(path[:length]) or self.value_positions.get(path[:length])
            if position is not None:
                return position
        return Position(1, 1)


def _position(text: str, offset: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def parse_spec_text(text: str, display_path: str, sha256: str | None = None) -> SpecSource:
    """Parse TOML text; a syntax error becomes a ``toml-syntax`` diagnostic, not a traceback."""
    nesting = toml_nesting_error(text)
    if nesting is not None:
        line, column = _position(text, nesting.offset)
        raise SpecError([Diagnostic(nesting.code, display_path, line, column, str(nesting))])
    try:
        document = tomllib.loads(text)
    except RecursionError:  # the scan above keeps well below this; a last line of defence
        message = f"the document nests too deeply (limit {MAX_TOML_DEPTH} levels)"
        raise SpecError([Diagnostic("limit-exceeded", display_path, 1, 1, message)]) from None
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        found = _TOML_ERROR_POSITION.search(message)
        line, column = (int(found.group(1)), int(found.group(2))) if found else (1, 1)
        message = _TOML_ERROR_POSITION.sub("", message).strip()
        raise SpecError(
            [Diagnostic("toml-syntax", display_path, line, column, f"invalid TOML: {message}")]
        ) from None
    values, keys = scan_positions(text)
    digest = sha256 or hashlib.sha256(text.encode("utf-8")).hexdigest()
    return SpecSource(display_path, text, digest, document, values, keys)


def load_spec(path: Path, display_path: str | None = None) -> SpecSource:
    """Read and parse ``path``; unreadable or non-UTF-8 files are diagnostics too."""
    shown = display_path or path.as_posix()
    try:
        size = path.stat().st_size
        if size > MAX_SPEC_BYTES:
            message = f"the file has {size:,} bytes; specs are limited to {MAX_SPEC_BYTES:,}"
            raise SpecError([Diagnostic("limit-exceeded", shown, 1, 1, message)])
        data = path.read_bytes()
    except OSError as error:
        reason = error.strerror or str(error)
        raise SpecError([Diagnostic("unreadable-file", shown, 1, 1, reason)]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise SpecError(
            [Diagnostic("toml-syntax", shown, line, column, "the file is not valid UTF-8")]
        ) from None
    return parse_spec_text(text.removeprefix("\ufeff"), shown, hashlib.sha256(data).hexdigest())
