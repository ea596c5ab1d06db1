import os

import pytest

from tests.shared_data import require_shared_data

os.environ.setdefault("ACOUSTICLAIM_NO_PROGRESS", "1")

pytest_plugins = ["tests.skip_policy", "pytester"]


@pytest.fixture
def shared_data():
    """The shared folder's ``data/`` (released references, SRMR golden set, panel sample); skips without it."""
    return require_shared_data()
