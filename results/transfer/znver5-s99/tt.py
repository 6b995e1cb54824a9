"""`tensortune` with ranked.py imported first (RANKED=1 in the environment: the model-ranked first design)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

if __name__ == "__main__":
    import ranked  # noqa: F401
    from tensortune.cli.main import main

    raise SystemExit(main(sys.argv[1:]))
