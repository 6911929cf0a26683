"""Built-in fitproof data packs (YAML). This file only makes the folder importable as fitproof.packs."""
