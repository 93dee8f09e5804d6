"""``python -m agents.train``: the same command as ``continental train``."""

import sys

from agents.train.sb3 import main

if __name__ == "__main__":
    sys.exit(main())
