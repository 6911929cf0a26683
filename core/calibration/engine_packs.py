"""The fitted block of the shipped engine packs (packs/engines/*.yaml): reading it, writing
it, and the block an engine without rows of its own borrows from DONOR."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import InputError

DONOR = "llama.cpp"  # stands in for engines without measurements
BEGIN = "# BEGIN fitted speed constants"
END = "# END fitted speed constants"
SERVING_BEGIN = "# BEGIN fitted serving constants"
SERVING_END = "# END fitted serving constants"


def current_block(folder: Path, engine: str) -> str | None:
    """The fitted block engine pack ``engine`` (in ``folder``) holds now."""
    text = (folder / f"{engine}.yaml").read_text(encoding="utf-8")
    match = re.search(rf"{re.escape(BEGIN)}[^\n]*\n(.*?){re.escape(END)}", text, re.S)
    return match.group(1).rstrip("\n") if match else None


def write_block(folder: Path, engine: str, block: str) -> Path:
    """Write ``block`` between the BEGIN and END lines of engine pack ``engine``."""
    path = folder / f"{engine}.yaml"
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(rf"({re.escape(BEGIN)}[^\n]*\n)(.*?)(?={re.escape(END)})", re.S)
    if not pattern.search(text):
        raise InputError(f"{path}: no '{BEGIN}' ... '{END}' block to write into")
    text = pattern.sub(lambda m: m.group(1) + (block + "\n" if block else ""), text, count=1)
    path.write_text(text, encoding="utf-8")
    return path


def serving_keys(folder: Path, engine: str) -> set[str]:
    """The constants the serving block of ``engine``'s pack holds (benchmarks/fit_serving.py
    fits them on the engine's own rows), which DONOR's block therefore leaves out."""
    text = (folder / f"{engine}.yaml").read_text("utf-8")
    match = re.search(re.escape(SERVING_BEGIN) + r".*?" + re.escape(SERVING_END), text, re.S)
    return set(re.findall(r"^([a-z_]+):", match.group(0), re.M)) if match else set()


def drop_keys(block: str, keys: set[str]) -> str:
    """``block`` without the top-level YAML entries named ``keys`` (and their contents)."""
    out, keep = [], True
    for line in block.splitlines(keepends=True):
        top = re.match(r"^([a-z_]+):", line)
        if top:
            keep = top.group(1) not in keys
        elif line.startswith("#"):
            keep = True
        if keep:
            out.append(line)
    return "".join(out)


def borrowed(folder: Path, block: str, engine: str) -> str:
    """DONOR's fitted block for ``engine``, every figure saying where it comes from (and
    without DONOR's held-out scores, which are of DONOR's rows, or the constants the
    engine's serving block holds)."""
    block = block.split("\nheld_out_accuracy:")[0]
    block = drop_keys(block, serving_keys(folder, engine))
    block = re.sub(r'source: "[^"]*"', f'source: "too few measurement rows of {engine} in '
                   f'packs/measurements/ for a fit of its own: the figure fitted for {DONOR} '
                   '(benchmarks/fit_speed.py) stands in"', block)
    return re.sub(r'note: "[^"]*"', f'note: "an assumption until {engine} rows are added and '
                  'refitted: both engines stream the same bytes at the same devices\' bandwidth"', block)


def current_serving_block(folder: Path, engine: str) -> str | None:
    """The serving block (BEGIN and END lines included) engine pack ``engine`` holds now."""
    text = (folder / f"{engine}.yaml").read_text("utf-8")
    match = re.search(re.escape(SERVING_BEGIN) + r".*?" + re.escape(SERVING_END) + r"\n", text,
                      re.S)
    return match.group(0) if match else None


def write_serving_block(folder: Path, engine: str, block: str) -> Path:
    """Write the serving block ``block`` (BEGIN and END lines included) into engine pack
    ``engine`` (in place of the one it holds, else at its end), and leave its keys out of
    the engine's fitted speed block (benchmarks/fit_speed.py does the same when it rewrites
    that block: see ``borrowed``)."""
    path = folder / f"{engine}.yaml"
    pack = path.read_text("utf-8")
    old = current_serving_block(folder, engine)
    pack = pack.replace(old, block) if old else pack.rstrip("\n") + "\n" + block
    keys = set(re.findall(r"^([a-z_]+):", block, re.M))
    speed = re.compile(rf"({re.escape(BEGIN)}[^\n]*\n)(.*?)(?={re.escape(END)})", re.S)
    pack = speed.sub(lambda m: m.group(1) + drop_keys(m.group(2), keys), pack, count=1)
    path.write_text(pack, "utf-8")
    return path
