"""Shared test configuration: the repository root on ``sys.path``, Hypothesis profiles and the
web-table fixtures ``app`` and ``client``, and the browser tests' ``browser``.

Hypothesis budgets are set per test with ``settings(max_examples=examples(n), deadline=None)``
(``reference.examples``); ``HYPOTHESIS_SCALE=20`` multiplies them for a long local run.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the suite also runs from a plain checkout (no pip install)
    sys.path.insert(0, str(ROOT))
TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:  # the helper modules beside the tests
    sys.path.insert(0, str(TESTS))

settings.register_profile("continental", deadline=None, print_blob=True)
settings.load_profile("continental")


@pytest.fixture
def app(tmp_path: Path) -> Any:
    """A web-table app with its results in a temporary folder (the side games' web tests; a
    module may define its own)."""
    from continental_web.app import create_app

    return create_app(results_dir=tmp_path)


@pytest.fixture
def client(app: Any) -> Any:
    """A test client of ``app``."""
    from fastapi.testclient import TestClient

    return TestClient(app, base_url="http://127.0.0.1")


@pytest.fixture(scope="module")
def browser() -> Any:
    """Debian's chromium driven by Playwright, one per module: skipped without chromium, a
    failure in CI (``.ci/run`` installs it)."""
    import os
    import shutil

    from test_web_browser import CHROMIUM, CHROMIUM_ARGS, sync_api

    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        if os.environ.get("CI"):
            pytest.fail(f"chromium is missing at {CHROMIUM}; .ci/run installs it with apt")
        pytest.skip(f"chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
