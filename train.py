"""``python train.py ...`` runs the training command, ``continental train`` (``agents/train/sb3.py``)."""

import sys

from agents.train.sb3 import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
