"""Registers this package's packs and a CSV output format with fitproof (entry point
group ``fitproof``)."""

from importlib.resources import files

import fitproof


@fitproof.hookimpl
def register_packs(register):
    """Register the YAML packs shipped in this package."""
    register(files("fitproof_example_pack") / "packs")


def _estimate_csv(view, options):
    """An estimate as CSV: one line per quantity (name, value, unit, the pack line)."""
    lines = ["quantity,value,unit,source"]
    for quantity in view.quantities.values():
        value = "" if quantity.value is None else repr(quantity.value)
        lines.append(f"{quantity.name},{value},{quantity.unit},{quantity.source}")
    return "\n".join(lines) + "\n"


@fitproof.hookimpl
def register_output_formats(register):
    """Add ``fitproof estimate --format csv``."""
    register("csv", "estimate", _estimate_csv, "one line per quantity")
