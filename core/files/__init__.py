"""Files fitproof reads and writes: where packs are (``pack_files``), safe YAML with line
numbers (``yaml_reader``), the packs' JSON schemas (``validation``), validated packs and
their cache (``loader``), the cache folder's rules (``cache_paths``) and the one rule for
what fitproof writes (``own_output``).

The bottom layer above ``specs``: it imports nothing of fitproof's but ``errors``,
``version`` and ``specs``.
"""
