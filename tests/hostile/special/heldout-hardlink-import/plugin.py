# Makes what git cannot hold: a hard link to the user's file where `import` writes its pack
# (run when the case's plugins are loaded, before the command writes anything).
import os
from pathlib import Path

_here = Path(__file__).parent
(_here / "out").mkdir(exist_ok=True)
os.link(_here / "precious.txt", _here / "out" / "x.yaml")
