"""The terminal game lives with the bots it plays against: ``python -m agents.play``.

The environment package never imports ``agents`` (data flows one way), so this module only points
to the front end: ``continental play`` or ``python -m agents.play``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

MOVED = "the terminal game is 'continental play' (or: python -m agents.play)"


def main(argv: Sequence[str] | None = None) -> int:
    """Print where the terminal game is and exit with status 2."""
    print(f"python -m continental_env.play: {MOVED}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
