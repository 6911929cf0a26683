"""Loading packs and linking them into a :class:`~fitproof.registry.index.Registry`: the plugins'
folders and local folders, overrides, the cross-pack checks, the formula graph."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

import dataclasses

from ..errors import InputError, PackError, Problem
from ..files.loader import (CACHE_ENTRIES, cache_entry, cache_file, cached_document, load_pack,
                            read_cache, write_cache)
from ..files.pack_files import USER_PACKS_ORIGIN, PackSource, find_pack_files, local_pack_roots
from ..views.formats import Formats
from ..views.results import LoadedPack
from .checks import check_scenarios, cross_check
from .graph import FormulaGraph
from .index import Registry
from .overrides import consented, unconsented_problems
from .plugins import collect_output_formats, collect_pack_roots, plugin_manager
from .profiles import default_profile, profile_graph
from .questions import check_questions


def pack_sources(pack_dirs: Iterable[str | os.PathLike[str]] = (), *, plugins: bool = True,
                 extra_plugins: Iterable[object] = (), environ: dict[str, str] | None = None,
                 formats: list[Formats] | None = None, roots_by_label: dict[str, str] | None = None,
                 ) -> tuple[list[PackSource], list[Problem], list[str]]:
    """Every pack file fitproof would load, in load order, with problems and warnings
    (and, into ``formats`` when given, the output formats the same plugins register; into
    ``roots_by_label``, each pack root's label and who gave it)."""
    plugin_set = plugin_manager(entry_points_group="fitproof" if plugins else None,
                                extra_plugins=extra_plugins)
    roots, warnings = collect_pack_roots(plugin_set)
    if formats is not None:
        found, format_warnings = collect_output_formats(plugin_set)
        formats.append(found)
        warnings += format_warnings
    roots += local_pack_roots(pack_dirs, environ=environ)
    if roots_by_label is not None:
        roots_by_label.update((root.label, root.origin) for root in roots)
    sources, problems = find_pack_files(roots)
    return sources, problems, list(plugin_set.warnings) + warnings


LOCAL_ORIGINS = ("fitproof", "--pack-dir", "FITPROOF_PACK_PATH", USER_PACKS_ORIGIN,
                 "validate", "import")


def load_registry(pack_dirs: Iterable[str | os.PathLike[str]] = (), *, plugins: bool = True,
                  extra_plugins: Iterable[object] = (), use_cache: bool = True,
                  environ: dict[str, str] | None = None, strict: bool = False,
                  profile: str | None = None, allow_override: bool = False) -> Registry:
    """Load every pack: built-in, from installed plugins, from ``FITPROOF_PACK_PATH`` and
    from ``pack_dirs``, in that order.

    A plugin that fails to load, or whose packs are invalid, is left out with a warning
    naming it (``Registry.warnings``) so that the rest keeps working; with ``strict`` any
    such warning is an error. Invalid built-in or local packs always raise
    :class:`PackError` listing every problem (``file:line: field: message``).
    ``plugins=False`` ignores installed plugins; ``extra_plugins`` registers plugin objects
    directly. ``profile`` picks the formula profile (default: the profile pack marked
    ``default: true``). A built-in pack or formula replaced by a plugin's pack or a
    ``FITPROOF_PACK_PATH`` one needs ``allow_override`` (or ``FITPROOF_ALLOW_OVERRIDE=1``):
    without it the plugin is disabled with a warning, the folder refused.
    """
    pack_dirs = list(pack_dirs)
    if any(not os.fspath(folder).strip() for folder in pack_dirs):
        # Path("") is the current folder, which nobody means by an empty name
        raise InputError("a pack folder needs a name; got an empty one")
    formats: list[Formats] = []
    labels: dict[str, str] = {}
    sources, problems, warnings = pack_sources(pack_dirs, plugins=plugins,
                                               extra_plugins=extra_plugins, environ=environ,
                                               formats=formats, roots_by_label=labels)
    loaded, load_problems = load_sources(sources, use_cache)
    problems += load_problems
    # who gave each file, and each root (a plugin's folder that is missing, or a file in it
    # that cannot be read, is that plugin's problem)
    origin_of = {**labels, **{source.path: source.origin for source in sources}}
    for problem in problems:
        if problem.file and problem.file not in origin_of:
            owner = next((origin for label, origin in labels.items()
                          if problem.file.startswith(label.rstrip("/\\") + "/")), None)
            if owner is not None:
                origin_of[problem.file] = owner
    while True:
        by_plugin = _plugin_problems(problems, origin_of)
        if by_plugin and not strict:
            for origin, plugin_problems in by_plugin.items():
                warnings.append(f"plugin {origin!r} is disabled; its packs have "
                                f"{len(plugin_problems)} problem(s):\n    " +
                                "\n    ".join(map(str, plugin_problems)))
            loaded = [p for p in loaded if p.origin not in by_plugin]
            problems = [p for p in problems if origin_of.get(p.file or "") not in by_plugin]
        if problems:
            raise PackError(problems)
        try:
            registry = link(loaded, warnings,
                            allow_override=consented(allow_override, environ))
        except PackError as exc:
            problems = list(exc.problems)
            if strict or not _plugin_problems(problems, origin_of):
                raise
            continue
        if strict and registry.warnings:
            raise PackError([Problem(f"(--strict) {w}") for w in registry.warnings])
        registry.output_formats = formats[0]
        return registry.with_profile(profile)


def _plugin_problems(problems: Sequence[Problem], origin_of: dict[str, str],
                     ) -> dict[str, list[Problem]]:
    """Problems in packs that installed plugins provided, by plugin."""
    result: dict[str, list[Problem]] = {}
    for problem in problems:
        origin = origin_of.get(problem.file or "")
        if origin is not None and origin not in LOCAL_ORIGINS:
            result.setdefault(origin, []).append(problem)
    return result


# Pack sets this process has linked (their checks passed, their graph built), by the
# packs' paths, origins and objects: the packs are frozen values, so the same objects link
# to the same graph. Each load still builds its own Registry (its caches, its formats).
_LINKED: dict[tuple[tuple[str, str, int], ...],
              tuple[tuple[LoadedPack, ...], list[LoadedPack], str | None, FormulaGraph]] = {}
LINKED_ENTRIES = 32


def link(loaded: Sequence[LoadedPack], warnings: Sequence[str] = (), *,
         allow_override: bool = True) -> Registry:
    """Cross-check loaded packs and build their formula graph; raise on any problem.
    Without ``allow_override``, a built-in pack or formula that a pack the user did not
    name replaces is a problem (core/registry/overrides.py)."""
    key = tuple((pack.path, pack.origin, id(pack.obj)) for pack in loaded)
    linked = _LINKED.get(key)
    if linked is None:
        resolved, problems = _resolve_overrides(loaded)
        problems += cross_check(resolved)
        if problems:  # linking broken packs would only add follow-on errors
            raise PackError(problems)
        profile = default_profile(resolved)
        graph, graph_problems = profile_graph(resolved, profile)
        problems = graph_problems + check_scenarios(resolved) + check_questions(resolved, graph)
        if problems:
            raise PackError(problems)
        # the entry holds the packs themselves, so no id in its key can name another object
        linked = _LINKED[key] = (tuple(loaded), resolved, profile, graph)
        while len(_LINKED) > LINKED_ENTRIES:
            del _LINKED[next(iter(_LINKED))]
    _, resolved, profile, graph = linked
    registry = Registry(resolved, graph, warnings, profile)
    if not allow_override:
        problems = unconsented_problems(registry.overrides)
        if problems:
            raise PackError(problems)
    return registry


# Packs this process has structured, by (path, origin, digest of their bytes): a second
# load in one process (a program using the API, a test suite) reads and hashes the files
# but neither parses the cache again nor structures them. A pack is the same frozen value
# for the same bytes at the same path from the same origin; bounded, oldest first out.
_STRUCTURED: dict[tuple[str, str, str], LoadedPack] = {}
STRUCTURED_ENTRIES = 20_000


def load_sources(sources: Sequence[PackSource], use_cache: bool = True,
                  ) -> tuple[list[LoadedPack], list[Problem]]:
    keys = [(source.path, source.origin, source.digest) for source in sources]
    known = sum(key in _STRUCTURED for key in keys) if use_cache else 0
    if known == len(keys) and use_cache:
        return [_STRUCTURED[key] for key in keys], []
    # a process that has structured most of these packs reads the few others from their
    # files rather than parse (and rewrite) the whole cache for them
    path = cache_file() if use_cache and known < len(keys) // 2 else None
    header, entries = read_cache(path)
    fresh: dict[str, Any] = {}
    loaded: list[LoadedPack] = []
    problems: list[Problem] = []
    changed = False
    for source in sources:
        digest = source.digest
        known_pack = _STRUCTURED.get((source.path, source.origin, digest)) if use_cache else None
        if known_pack is not None:
            loaded.append(known_pack)
            continue
        cached = entries.get(digest)
        if cached is not None and cached_document(source, cached) is None:
            cached = None  # not the shape this version writes: read the file
        try:
            try:
                obj, document = load_pack(source, cached)
            except PackError:
                if cached is None:
                    raise
                # an entry that does not structure is no evidence about the file: read it
                cached = None
                obj, document = load_pack(source)
        except PackError as exc:
            problems.extend(exc.problems)
            continue
        if cached is None:
            changed = True
        fresh[digest] = cached or cache_entry(document)
        loaded.append(LoadedPack(obj.kind, obj.id, _display_name(obj), source.path,
                                 source.origin, obj))
        _remember((source.path, source.origin, digest), loaded[-1])
    if path is not None and changed:
        # this run's packs first, then those of earlier runs (other --pack-dir sets), so
        # that alternating between pack sets does not evict each other; bounded
        kept = {**fresh, **{d: e for d, e in entries.items() if d not in fresh}}
        write_cache(path, header, dict(list(kept.items())[:CACHE_ENTRIES]))
    return loaded, problems


def _remember(key: tuple[str, str, str], pack: LoadedPack) -> None:
    _STRUCTURED.pop(key, None)
    _STRUCTURED[key] = pack
    while len(_STRUCTURED) > STRUCTURED_ENTRIES:
        del _STRUCTURED[next(iter(_STRUCTURED))]


def _display_name(obj: Any) -> str:
    name = getattr(obj, "name", None) or obj.id
    vendor = getattr(obj, "vendor", None)
    return f"{vendor} {name}" if vendor else name


def _resolve_overrides(loaded: Sequence[LoadedPack]) -> tuple[list[LoadedPack], list[Problem]]:
    """One pack per kind and id: a later pack replaces an earlier one only when it declares
    ``override: true``; otherwise the duplicate is an error naming both sources."""
    problems: list[Problem] = []
    winners: dict[tuple[str, str], LoadedPack] = {}
    for pack in loaded:
        key = (pack.kind, pack.id)
        first = winners.get(key)
        declares = bool(getattr(pack.obj, "override", False))
        if first is None:
            if declares:
                problems.append(Problem(f"override: true, but no other pack defines "
                                        f"{pack.kind} {pack.id!r}", pack.path,
                                        pack.override_line, "override"))
            winners[key] = pack
        elif declares:
            winners[key] = dataclasses.replace(pack, replaces=(*first.replaces, first))
        else:
            problems.append(Problem(
                f"{pack.kind} id {pack.id!r} is already defined by {first.path} (from "
                f"{first.origin}); ids must be unique, or add 'override: true' to replace it",
                pack.path, pack.obj.pack.line_of("id"), "id"))
    kept = [winners[(p.kind, p.id)] for p in loaded
            if winners[(p.kind, p.id)].path == p.path]
    return kept, problems
