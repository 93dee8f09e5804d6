"""``python -m agents.evaluate``: the same command as ``continental evaluate``."""

import sys

from agents.evaluate.harness import main

if __name__ == "__main__":
    sys.exit(main())
