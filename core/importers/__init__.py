"""Importers: build model packs from the files models ship with (config.json, GGUF)."""
