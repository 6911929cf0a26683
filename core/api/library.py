"""The pack library: load and link the packs, list and show them, check pack files, and
refit the speed constants into a profile pack of the user's (``calibrate``)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..errors import InputError, UnknownIdError

if TYPE_CHECKING:
    from ..registry.index import Registry
    from ..views.results import CalibrationView, LoadedPack, PacksView, PackView, ValidationReport


def load_registry(pack_dirs: Iterable[str | os.PathLike[str]] = (), *, plugins: bool = True,
                  extra_plugins: Iterable[object] = (), use_cache: bool = True,
                  environ: dict[str, str] | None = None, strict: bool = False,
                  profile: str | None = None, allow_override: bool = False) -> Registry:
    """Every pack, linked: built-in, installed plugins', ``FITPROOF_PACK_PATH``'s and
    ``pack_dirs``' (see :func:`fitproof.registry.linking.load_registry`)."""
    from ..registry.linking import load_registry as load_all

    return load_all(pack_dirs, plugins=plugins, extra_plugins=extra_plugins,
                    use_cache=use_cache, environ=environ, strict=strict, profile=profile,
                    allow_override=allow_override)


load = load_registry


def packs(registry: Registry, kind: str | None = None) -> PacksView:
    """``fitproof packs list``: the loaded packs, of ``kind`` when given."""
    from ..views.results import PacksView

    found = [p for p in registry.packs if not kind or p.kind == kind]
    if kind and not found:
        kinds = sorted({p.kind for p in registry.packs})
        raise InputError(f"no packs of kind {kind!r}; kinds are {', '.join(kinds)}")
    return PacksView(tuple(found))


def pack(registry: Registry, name: str, kind: str | None = None) -> PackView:
    """``fitproof packs show``: the pack called ``name`` (id or alias), of ``kind`` if given."""
    from ..views.results import PackView

    matches = [p for p in registry.packs if p.id == name and (not kind or p.kind == kind)]
    if not matches:
        matches = _by_alias(registry, name, kind)
    if not matches:
        import difflib

        ids = sorted({p.id for p in registry.packs if not kind or p.kind == kind})
        close = difflib.get_close_matches(name.lower(), ids, n=3, cutoff=0.5)
        raise UnknownIdError(kind or "pack", name, close)
    if len(matches) > 1:
        raise InputError(f"{name!r} is the id of several packs "
                         f"({', '.join(p.kind for p in matches)}); add --kind")
    return PackView(matches[0])


def _by_alias(registry: Registry, name: str, kind: str | None) -> list[LoadedPack]:
    named = set(registry.named(name, kind))
    return [p for p in registry.packs if (p.kind, p.id) in named]


def validate_packs(paths: Iterable[str], *, plugins: bool = True) -> ValidationReport:
    """``fitproof packs validate``: each file alone, then together with the installed packs."""
    from .validate import validate_paths

    return validate_paths(paths, plugins=plugins)


def calibrate(registry: Registry, *, name: str = "mine", engine: str | None = None,
              repeats: int | None = None, force: bool = False,
              out: str | None = None) -> CalibrationView:
    """``fitproof calibrate``: the speed constants refitted on the shipped measurement rows
    plus the user's, written as profile ``name`` (``--profile name`` then uses them), with
    the held-out error of the shipped and refitted constants (needs scipy: the fit extra)."""
    from ..calibration.fit import require_scipy

    require_scipy()  # before numpy and the fit's modules load
    from ..calibration.calibrate import DEFAULT_REPEATS, calibrate as run

    return run(registry, name=name, engine=engine, force=force, out=out,
               repeats=DEFAULT_REPEATS if repeats is None else repeats)
