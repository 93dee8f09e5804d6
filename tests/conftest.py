"""Shared test configuration: the repository root on ``sys.path`` and Hypothesis profiles.

Hypothesis budgets are set per test with ``settings(max_examples=examples(n), deadline=None)``
(``reference.examples``); ``HYPOTHESIS_SCALE=20`` multiplies them for a long local run.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the suite also runs from a plain checkout (no pip install)
    sys.path.insert(0, str(ROOT))
TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:  # the helper modules beside the tests
    sys.path.insert(0, str(TESTS))

settings.register_profile("continental", deadline=None, print_blob=True)
settings.load_profile("continental")
