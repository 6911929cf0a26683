"""JSON Schemas (Draft 2020-12) for fitproof packs and outputs. Importable as fitproof.schemas."""
