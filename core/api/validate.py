"""``fitproof packs validate``: check pack files on their own and together with the rest."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import PackError, Problem
from ..files.pack_files import PackRoot, find_pack_files, package_folder
from ..registry.linking import link, load_sources, pack_sources
from ..registry.overrides import consented
from ..views.results import FileResult, LoadedPack, ValidationReport


def _real(label: str, origin: str = "validate") -> Path:
    """The file a pack's display path names (a built-in pack's is under the package)."""
    if origin == "fitproof":
        folder = package_folder("fitproof.packs")
        if isinstance(folder, Path):
            return (folder.parent / label).resolve()
    return Path(label).resolve()


def validate_paths(paths: Iterable[str], *, plugins: bool = True) -> ValidationReport:
    """Validate every pack under ``paths``: YAML, schema, structure, then cross-pack checks
    (references, formula names, cycles, in every profile) against the built-in and
    installed packs, with the
    given packs taking the place of installed ones that have the same kind and id."""
    roots = [PackRoot(Path(p), "validate", p) for p in paths]
    given_sources, problems = find_pack_files(roots)
    results: list[FileResult] = []
    given: list[LoadedPack] = []
    for source in given_sources:
        loaded, file_problems = load_sources([source], use_cache=False)
        if loaded:
            pack = loaded[0]
            given.append(pack)
            results.append(FileResult(source.path, pack.kind, pack.id, ()))
        else:
            results.append(FileResult(source.path, None, None, tuple(file_problems)))
    for problem in problems:
        results.append(FileResult(problem.file or "?", None, None, (problem,)))
    if not given_sources and not problems:
        results.append(FileResult(", ".join(paths), None, None,
                                  (Problem("no .yaml pack files found"),)))

    installed_sources, installed_problems, warnings = pack_sources(plugins=plugins)
    installed, load_problems = load_sources(installed_sources)
    # the given packs load last, as --pack-dir's do, so that overrides and duplicate ids
    # are judged as every command judges them; a given file that is itself one of the
    # installed packs (validating packs/hardware/), or that an installed plugin holds a
    # byte-identical copy of (validating a plugin's source folder), is not counted twice
    digests = {(s.origin, s.path): s.digest for s in [*given_sources, *installed_sources]}
    given_files = {_real(p.path) for p in given}
    given_copies = {(p.kind, p.id, digests[p.origin, p.path]) for p in given}
    merged = [p for p in installed
              if _real(p.path, p.origin) not in given_files
              and (p.kind, p.id, digests.get((p.origin, p.path))) not in given_copies] + given
    context: list[Problem] = list(installed_problems) + list(load_problems)
    if all(not r.problems for r in results):
        try:
            context.extend(link(merged, allow_override=consented(False)).check_profiles())
        except PackError as exc:
            context.extend(exc.problems)
    return ValidationReport(tuple(results), tuple(context), tuple(warnings))
