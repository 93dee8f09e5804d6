"""``python -m agents.rllib``: the same command as ``continental train-rllib``."""

import sys

from agents.rllib.train import main

if __name__ == "__main__":
    sys.exit(main())
