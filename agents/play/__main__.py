"""``python -m agents.play``: the same command as ``continental play``."""

import sys

from agents.play.contract import main

if __name__ == "__main__":
    sys.exit(main())
