"""The git repository fixture of the diff command's and the check baseline's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.deploy.git_repository import make_repository


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    return make_repository(tmp_path)
