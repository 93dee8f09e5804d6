"""``python -m agents.demo``, the README's first command: ``agents.play.demo``."""

from agents.play.demo import main

if __name__ == "__main__":
    main()
