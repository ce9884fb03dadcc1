"""The seed specs in spec/, compiled the way ``statewright docs`` does (paths relative to the
repository, so pages are the same wherever the checkout lives)."""

from __future__ import annotations

from pathlib import Path

from statewright_compiler import compile_spec
from statewright_compiler.model import Machine

from tests.docs.tools import REPOSITORY

SPECS = sorted((REPOSITORY / "spec").glob("*.toml"))
GOLDEN = Path(__file__).parent / "golden"


def compile_seed(spec: Path) -> Machine:
    machine, _ = compile_spec(spec, spec.relative_to(REPOSITORY).as_posix())
    return machine
