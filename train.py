"""``python train.py ...`` runs the training command, ``continental train`` (``agents/train.py``)."""

import sys

from agents.train import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
