"""A sweep table as a Parquet file: the one binary output, written with pyarrow (an
optional dependency: ``pip install 'fitproof[parquet]'``)."""

from __future__ import annotations

from pathlib import Path

from .errors import InputError
from .views import SweepView


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
    try:
        pq.write_table(table.replace_schema_metadata(metadata), Path(path))
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
