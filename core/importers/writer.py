"""Write an imported pack, validated, without overwriting by accident."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError, PackError
from ..files.loader import load_pack
from ..files.own_output import check_parents, check_target, write_file
from ..files.pack_files import PackSource

_ID_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789._-")


def check_text(options: dict[str, str | None]) -> None:
    """Each option given as text (``--name``, ``--source``…) is text a pack file can hold:
    a command-line argument that is not valid UTF-8 arrives with lone surrogates."""
    for option, value in options.items():
        if value is None:
            continue
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(f"{option} is not valid UTF-8 text") from None


def write_pack(text: str, out_dir: str | Path, pack_id: str, *, force: bool = False) -> Path:
    """Validate ``text`` as a pack and write it to ``out_dir/<pack_id>.yaml``."""
    if not pack_id or not set(pack_id) <= _ID_CHARS or pack_id[0] in "._-":
        raise InputError(f"--id {pack_id!r}: use lower-case letters, digits, '.', '_' and '-'")
    folder = Path(out_dir)
    check_parents(folder)  # --out afile/sub: one line
    if folder.exists() and not folder.is_dir():  # mkdir would say 'File exists'
        raise InputError(f"{folder}: --out must be a folder")
    path = folder / f"{pack_id}.yaml"
    try:  # checked before it is written: the problems name the pack it would have been
        load_pack(PackSource(f"{path} (not written)", "import", pack_id, text.encode("utf-8")))
    except PackError as exc:
        raise PackError([*exc.problems]) from None
    if check_target(path) is not None and not force:  # a link is refused, --force or not
        raise InputError(f"{path} exists; pass --force to overwrite it")
    return write_file(path, text, make_folders=True)  # whole, never through a link (a link is refused)
