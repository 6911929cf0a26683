# Makes what git cannot hold: a hard link to the user's file where `sweep --out` writes.
import os
from pathlib import Path

_here = Path(__file__).parent
os.link(_here / "precious.txt", _here / "rows.csv")
