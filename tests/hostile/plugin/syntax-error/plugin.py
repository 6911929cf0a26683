def register_packs(:
