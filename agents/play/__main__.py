"""``python -m agents.play``: the same command as ``continental play``."""

import sys

from agents.play.terminal import main

if __name__ == "__main__":
    sys.exit(main())
