"""How names match: case, spaces, '-' and '_' do not matter ("RTX 3090" is rtx-3090)."""

from __future__ import annotations

import re


def name_key(text: str) -> str:
    """Loose form of a name for matching: case, spaces, '-' and '_' do not matter."""
    return re.sub(r"[\s_\-]+", "", text.casefold())
