"""A sweep table as a Parquet file: the one binary output, written with pyarrow (an
optional dependency: ``pip install 'fitproof[parquet]'``)."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..files.own_output import write_file
from ..views.results import SweepView


def write_parquet(view: SweepView, path: str) -> None:
    """Write ``view`` to ``path``: one column per sweep column (unknown numbers are null),
    each quantity's unit in the schema metadata as ``unit:NAME``."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("--format parquet needs pyarrow: pip install 'fitproof[parquet]'") from None

    table = pa.table({name: view.plain(name) for name in view.columns})
    metadata = {f"unit:{n}": u for n, u in view.units.items() if u}
    buffer = pa.BufferOutputStream()  # written whole, never through a link (own_output)
    pq.write_table(table.replace_schema_metadata(metadata), buffer)
    write_file(Path(path), buffer.getvalue().to_pybytes())
