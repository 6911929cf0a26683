"""The registry: every loaded pack, indexed, cross-checked, and linked into one formula graph."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from .errors import PackError, Problem, UnknownIdError
from .evaluator import Candidate
from .graph import FormulaGraph, build_graph
from .loader import (PackSource, cache_entry, cache_file, find_pack_files, load_pack,
                     read_cache, write_cache)
from .formats import Formats
from .namespaces import Entity, FieldValue
from .plugins import (PluginSet, collect_output_formats, collect_pack_roots, local_pack_roots,
                      plugin_manager)
from .quant_formats import resolve_format, type_of
from .specs import (TENSOR_CLASSES, ArchitecturePack, BlockType, CatalogPack, ImporterPack, EngineSpec, FormulaPack, HardwareSpec, InputPack, KVCachePack,
                    KVCacheType, MeasurementPack, ModelSpec, ProfilePack, Provider, QuantFormat, QuantizationPack,
                    ReportPack, ScenarioPack, SelectionPack, VerdictPack, WorkloadSpec)
from .views import LoadedPack

KINDS_WITH_NAMES = ("model", "hardware", "provider", "quant", "kv", "engine", "scenario",
                    "workload", "profile", "host")


def _key(text: str) -> str:
    """Loose form of a name for matching: case, spaces, '-' and '_' do not matter."""
    return re.sub(r"[\s_\-]+", "", text.casefold())


class Registry:
    """All packs fitproof knows, with lookups by id or alias.

    Build one with :func:`load_registry`.
    """

    def __init__(self, packs: Sequence[LoadedPack], graph: FormulaGraph,
                 warnings: Sequence[str] = (), profile: str | None = None):
        self.packs = tuple(packs)
        self.graph = graph
        self.warnings = tuple(warnings)
        #: the profile whose formulas ``graph`` holds (None when no profile pack exists)
        self.profile = profile
        #: the output formats of the plugins this registry was loaded with (None for a
        #: registry linked by hand: fitproof.api.output_formats then gives the built-ins)
        self.output_formats: Formats | None = None
        self.profiles: dict[str, ProfilePack] = {}
        self.models: dict[str, ModelSpec] = {}
        self.hardware: dict[str, HardwareSpec] = {}
        self.providers: dict[str, Provider] = {}
        self.engines: dict[str, EngineSpec] = {}
        self.scenarios: dict[str, ScenarioPack] = {}
        self.workloads: dict[str, WorkloadSpec] = {}
        self.catalogs: dict[str, CatalogPack] = {}
        self.report: ReportPack | None = None
        self.importers: dict[str, ImporterPack] = {}
        #: public speed measurements, by pack id (fitproof validate scores against them)
        self.measurements: dict[str, MeasurementPack] = {}
        self.quant_formats: dict[str, tuple[QuantFormat, QuantizationPack]] = {}
        self.block_types: dict[str, tuple[BlockType, str]] = {}
        self.kv_types: dict[str, tuple[KVCacheType, KVCachePack]] = {}
        for pack in self.packs:
            obj = pack.obj
            if isinstance(obj, ModelSpec):
                self.models[obj.id] = obj
            elif isinstance(obj, HardwareSpec):
                self.hardware[obj.id] = obj
            elif isinstance(obj, Provider):
                self.providers[obj.id] = obj
            elif isinstance(obj, EngineSpec):
                self.engines[obj.id] = obj
            elif isinstance(obj, ScenarioPack):
                self.scenarios[obj.id] = obj
            elif isinstance(obj, WorkloadSpec):
                self.workloads[obj.id] = obj
            elif isinstance(obj, CatalogPack):
                self.catalogs[obj.id] = obj
            elif isinstance(obj, ProfilePack):
                self.profiles[obj.id] = obj
            elif isinstance(obj, ReportPack):
                self.report = obj
            elif isinstance(obj, ImporterPack):
                self.importers[obj.id] = obj
            elif isinstance(obj, MeasurementPack):
                self.measurements[obj.id] = obj
            elif isinstance(obj, QuantizationPack):
                for fid, fmt in obj.formats.items():
                    self.quant_formats[fid] = (fmt, obj)
                for tid, block in obj.types.items():
                    self.block_types[tid] = (block, obj.pack.at("types", tid))
            elif isinstance(obj, KVCachePack):
                for tid, kv in obj.types.items():
                    self.kv_types[tid] = (kv, obj)
        self.quant_formats = {fid: (resolve_format(fmt, self.block_types), pack)
                              for fid, (fmt, pack) in self.quant_formats.items()}
        self._entities: dict[tuple[str, str], Entity] = {}
        self._candidates: CandidatePool | None = None

    # -- lookups ----------------------------------------------------------------------------
    def _names(self, kind: str) -> dict[str, list[str]]:
        """id → [id, aliases...] for one kind."""
        table: Mapping[str, Any] = {
            "model": self.models, "hardware": self.hardware, "provider": self.providers,
            "engine": self.engines, "scenario": self.scenarios, "workload": self.workloads,
            "profile": self.profiles,
            "quant": {k: v[0] for k, v in self.quant_formats.items()},
            "kv": {k: v[0] for k, v in self.kv_types.items()},
            # a host is a processor and its system memory: a hardware pack of backend cpu
            "host": {k: v for k, v in self.hardware.items() if v.backend == HOST_BACKEND},
        }[kind]
        return {key: [key, *getattr(obj, "aliases", ())] for key, obj in table.items()}

    def resolve(self, kind: str, name: str) -> str:
        """The id of the ``kind`` pack called ``name`` (id or alias, case-insensitive).

        Raises :class:`UnknownIdError` with the closest ids when nothing matches.
        """
        names = self._names(kind)
        wanted = name.strip()
        for match in (lambda n: n == wanted, lambda n: n.casefold() == wanted.casefold(),
                      lambda n: _key(n) == _key(wanted)):
            hits = sorted({key for key, options in names.items() if any(map(match, options))})
            if len(hits) == 1:
                return hits[0]
            if len(hits) > 1:
                raise UnknownIdError(kind, name, hits)
        if len(names) <= 12:  # a short list is more helpful than a guess
            raise UnknownIdError(_KIND_WORDS.get(kind, kind), name, [], list(names))
        # names that contain every word typed ("qwen 35b" → qwen3.5-35b-a3b) come first
        words = re.findall(r"[a-z0-9]+", wanted.casefold())

        def has_words(option: str) -> bool:
            parts = re.findall(r"[a-z0-9]+", option.casefold())
            return all(any(p.startswith(w) for p in parts) for w in words)

        containing = sorted((k for k, opts in names.items()
                             if words and any(map(has_words, opts))),
                            key=lambda k: (len(k), k))
        options = {option.casefold(): key for key, opts in names.items() for option in opts}
        close = difflib.get_close_matches(wanted.casefold(), list(options), n=6, cutoff=0.5)
        suggestions = list(dict.fromkeys([*containing, *(options[c] for c in close)]))[:3]
        raise UnknownIdError(_KIND_WORDS.get(kind, kind), name, suggestions)

    def with_profile(self, name: str | None) -> "Registry":
        """The same packs evaluated with the formulas of profile ``name`` (id or alias;
        ``None`` keeps this registry's profile).

        Raises :class:`UnknownIdError` for an unknown profile and :class:`PackError` when
        that profile's formulas do not link.
        """
        if name is None:
            return self
        wanted = self.resolve("profile", name)
        if wanted == self.profile:
            return self
        graph, problems = profile_graph(self.packs, wanted)
        if problems:
            raise PackError(problems)
        registry = Registry(self.packs, graph, self.warnings, wanted)
        registry.output_formats = self.output_formats
        return registry

    def check_profiles(self) -> list[Problem]:
        """Problems in the formulas of every profile but the one already linked."""
        problems: list[Problem] = []
        for profile in self.profiles:
            if profile != self.profile:
                problems += profile_graph(self.packs, profile)[1]
        return list(dict.fromkeys(problems))

    def pack_of(self, kind: str, id: str) -> LoadedPack | None:
        for pack in self.packs:
            if pack.kind == kind and pack.id == id:
                return pack
        return None

    def hardware_on_backend(self, id: str, backend: str) -> Entity:
        """Hardware ``id`` as an engine sees it through another compute ``backend`` (Vulkan
        instead of ROCm on a Radeon, say): the same figures, the backend's constants."""
        key = ("hardware@" + backend, id)
        if key not in self._entities:
            plain = self.entity("hardware", id)
            self._entities[key] = attrs.evolve(plain, obj=attrs.evolve(plain.obj, backend=backend))
        return self._entities[key]

    def entity(self, namespace: str, id: str) -> Entity:
        """The pack object ``id`` bound to ``namespace`` (model, hardware, quant, kv, engine)."""
        key = (namespace, id)
        if key not in self._entities:
            if namespace == "model":
                obj = self.models[id]
                entity = Entity("model", id, obj, obj.pack, (), obj.source)
            elif namespace in ("hardware", "host"):
                obj = self.hardware[id]
                entity = Entity(namespace, id, obj, obj.pack, (), obj.source)
            elif namespace in ("engine", "provider", "workload"):
                obj = {"engine": self.engines, "provider": self.providers,
                       "workload": self.workloads}[namespace][id]
                entity = Entity(namespace, id, obj, obj.pack, (), obj.source)
            elif namespace == "quant":
                fmt, pack = self.quant_formats[id]
                entity = Entity("quant", id, fmt, pack.pack, ("formats", id),
                                fmt.source or pack.source)
            elif namespace == "kv":
                kv, pack = self.kv_types[id]
                entity = Entity("kv", id, kv, pack.pack, ("types", id), kv.source or pack.source)
            else:
                raise KeyError(namespace)
            self._entities[key] = entity
        return self._entities[key]

    def candidates(self) -> "CandidatePool":
        """Everything a selection can choose from, built on first use, in a stable order."""
        if self._candidates is None:
            self._candidates = CandidatePool(self)
        return self._candidates

    def offer_candidates(self) -> list[Candidate]:
        offers = []
        for provider in sorted(self.providers.values(), key=lambda p: (p.rank or 10**6, p.id)):
            provider_entity = self.entity("provider", provider.id)
            for offer in provider.offers:
                offer_entity = Entity("offer", f"{provider.id}/{offer.id}", offer,
                                      provider.pack, ("offers", offer.index),
                                      offer.source or provider.source)
                hardware = self.hardware[offer.hardware]
                gpus = FieldValue("gpus", float(offer.gpus.value), "devices",
                                  provider.pack.at("offers", offer.index, "gpus"))
                label = (f"{provider.name} · {int(offer.gpus.value)}x {hardware.name}"
                         + (f" ({offer.tier})" if offer.tier else ""))
                offers.append(Candidate(offer_entity.id, label,
                                        {"offer": offer_entity,
                                         "hardware": self.entity("hardware", hardware.id),
                                         "provider": provider_entity},
                                        {"gpus": gpus}))
        return offers

    @property
    def accelerators(self) -> dict[str, HardwareSpec]:
        """Hardware packs that are accelerators: all but the hosts (backend cpu), which
        estimates may target but tables of accelerators and recommendations leave out."""
        return {k: v for k, v in self.hardware.items() if v.backend != HOST_BACKEND}

    def hardware_candidates(self, counts: Sequence[int] = ()) -> list[Candidate]:
        """Every accelerator; with ``counts``, every accelerator in sets of each size."""
        result = []
        for count in counts or (None,):
            for hardware in sorted(self.accelerators.values(), key=lambda h: h.id):
                entities = {"hardware": self.entity("hardware", hardware.id)}
                if count is None:
                    result.append(Candidate(hardware.id, hardware.display_name, entities))
                else:
                    gpus = FieldValue("gpus", float(count), "devices", "selection")
                    label = hardware.display_name if count == 1 else \
                        f"{count}x {hardware.display_name}"
                    result.append(Candidate(f"{count}x{hardware.id}", label, entities,
                                            {"gpus": gpus}))
        return result


class CandidatePool(Mapping):
    """Candidate lists by collection key: 'offers', 'hardware', 'hardwarex1,2,4,8'."""

    def __init__(self, registry: Registry):
        self._registry = registry
        self._lists: dict[str, list[Candidate]] = {}

    def __getitem__(self, key: str) -> list[Candidate]:
        if key not in self._lists:
            if key == "offers":
                self._lists[key] = self._registry.offer_candidates()
            elif key == "hardware":
                self._lists[key] = self._registry.hardware_candidates()
            elif key.startswith("hardwarex"):
                counts = [int(n) for n in key.removeprefix("hardwarex").split(",")]
                self._lists[key] = self._registry.hardware_candidates(counts)
            else:
                raise KeyError(key)
        return self._lists[key]

    def __iter__(self):
        return iter(("offers", "hardware"))

    def __len__(self) -> int:
        return 2


HOST_BACKEND = "cpu"  # hardware packs of this backend are hosts (schemas/hardware.schema.json)
_KIND_WORDS = {"quant": "quantization", "kv": "KV cache type", "host": "host (cpu hardware pack)"}


def default_profile(loaded: Sequence[LoadedPack]) -> str | None:
    """The profile marked ``default: true`` (None when no profile pack is loaded)."""
    defaults = [p.id for p in loaded if p.kind == "profile" and p.obj.default]
    return defaults[0] if defaults else None


def profile_chain(loaded: Sequence[LoadedPack], profile: str | None) -> list[str]:
    """``profile`` and the profiles it extends, the most basic first."""
    by_id = {p.id: p.obj for p in loaded if p.kind == "profile"}
    chain: list[str] = []
    while profile is not None and profile in by_id and profile not in chain:
        chain.insert(0, profile)
        profile = by_id[profile].extends
    return chain


def profile_graph(loaded: Sequence[LoadedPack], profile: str | None,
                  ) -> tuple[FormulaGraph, list[Problem]]:
    """The formula graph of ``profile``: the shared formula packs and those of each profile
    in its chain (a redefinition needs ``override: true``)."""
    objs = [p.obj for p in loaded]
    rank = {member: i + 1 for i, member in enumerate(profile_chain(loaded, profile))}
    # load order, except that within each origin a profile's packs follow those of the
    # profiles it extends: a later definition is the one that must say 'override: true'
    chosen = [p for p in loaded if isinstance(p.obj, FormulaPack)
              and (p.obj.profile is None or p.obj.profile in rank)]
    origin_rank = {origin: i for i, origin in enumerate(dict.fromkeys(p.origin for p in loaded))}
    chosen.sort(key=lambda p: (origin_rank[p.origin], rank.get(p.obj.profile, 0)))
    formula_packs = [p.obj for p in chosen]
    return build_graph(
        formula_packs,
        [o for o in objs if isinstance(o, SelectionPack)],
        [o for o in objs if isinstance(o, VerdictPack)],
        [o for o in objs if isinstance(o, InputPack)],
        [o for o in objs if isinstance(o, ArchitecturePack)])


# -- loading --------------------------------------------------------------------------------
def pack_sources(pack_dirs: Iterable[str | os.PathLike] = (), *, plugins: bool = True,
                 extra_plugins: Iterable[object] = (), environ: dict[str, str] | None = None,
                 formats: list[Formats] | None = None,
                 ) -> tuple[list[PackSource], list[Problem], list[str]]:
    """Every pack file fitproof would load, in load order, with problems and warnings
    (and, into ``formats`` when given, the output formats the same plugins register)."""
    plugin_set = plugin_manager(entry_points_group="fitproof" if plugins else None,
                                extra_plugins=extra_plugins)
    roots, warnings = collect_pack_roots(plugin_set)
    if formats is not None:
        found, format_warnings = collect_output_formats(plugin_set)
        formats.append(found)
        warnings += format_warnings
    roots += local_pack_roots(pack_dirs, environ=environ)
    sources, problems = find_pack_files(roots)
    return sources, problems, list(plugin_set.warnings) + warnings


LOCAL_ORIGINS = ("fitproof", "--pack-dir", "FITPROOF_PACK_PATH", "validate", "import")


def load_registry(pack_dirs: Iterable[str | os.PathLike] = (), *, plugins: bool = True,
                  extra_plugins: Iterable[object] = (), use_cache: bool = True,
                  environ: dict[str, str] | None = None, strict: bool = False,
                  profile: str | None = None) -> Registry:
    """Load every pack: built-in, from installed plugins, from ``FITPROOF_PACK_PATH`` and
    from ``pack_dirs``, in that order.

    A plugin that fails to load, or whose packs are invalid, is left out with a warning
    naming it (``Registry.warnings``) so that the rest keeps working; with ``strict`` any
    such warning is an error. Invalid built-in or local packs always raise
    :class:`PackError` listing every problem (``file:line: field: message``).
    ``plugins=False`` ignores installed plugins; ``extra_plugins`` registers plugin objects
    directly. ``profile`` picks the formula profile (default: the profile pack marked
    ``default: true``).
    """
    formats: list[Formats] = []
    sources, problems, warnings = pack_sources(pack_dirs, plugins=plugins,
                                               extra_plugins=extra_plugins, environ=environ,
                                               formats=formats)
    loaded, load_problems = load_sources(sources, use_cache)
    problems += load_problems
    origin_of = {source.path: source.origin for source in sources}
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
            registry = link(loaded, warnings)
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


def link(loaded: Sequence[LoadedPack], warnings: Sequence[str] = ()) -> Registry:
    """Cross-check loaded packs and build their formula graph; raise on any problem."""
    loaded, problems = _resolve_overrides(loaded)
    problems += _cross_check(loaded)
    if problems:  # linking broken packs would only add follow-on errors
        raise PackError(problems)
    profile = default_profile(loaded)
    graph, graph_problems = profile_graph(loaded, profile)
    problems = graph_problems + _check_scenarios(loaded)
    if problems:
        raise PackError(problems)
    return Registry(loaded, graph, warnings, profile)


def _check_scenarios(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Scenario packs must name packs that exist."""
    known: dict[str, set[str]] = {"model": set(), "hardware": set(), "engine": set(),
                                  "quant": set(), "kv": set(), "workload": set()}
    for pack in loaded:
        if pack.kind in ("model", "hardware", "engine", "workload"):
            known[pack.kind] |= {_key(pack.id), *map(_key, getattr(pack.obj, "aliases", ()))}
        elif pack.kind == "quantization":
            for fid, fmt in pack.obj.formats.items():
                known["quant"] |= {_key(fid), *map(_key, fmt.aliases)}
        elif pack.kind == "kv_cache":
            for tid, kv in pack.obj.types.items():
                known["kv"] |= {_key(tid), *map(_key, kv.aliases)}
    problems = []
    for pack in loaded:
        if pack.kind != "scenario":
            continue
        for key in known:
            name = getattr(pack.obj, key)
            if _key(name) not in known[key]:
                problems.append(Problem(f"no {key} pack is called {name!r}", pack.path,
                                        pack.obj.pack.line_of(key), key))
    return problems


def load_sources(sources: Sequence[PackSource], use_cache: bool = True,
                  ) -> tuple[list[LoadedPack], list[Problem]]:
    path = cache_file() if use_cache else None
    header, entries = read_cache(path)
    fresh: dict[str, Any] = {}
    loaded: list[LoadedPack] = []
    problems: list[Problem] = []
    changed = False
    for source in sources:
        digest = source.digest
        try:
            obj, document = load_pack(source, entries.get(digest))
        except PackError as exc:
            problems.extend(exc.problems)
            continue
        if digest not in entries:
            changed = True
        fresh[digest] = entries.get(digest) or cache_entry(document)
        loaded.append(LoadedPack(obj.kind, obj.id, _display_name(obj), source.path,
                                 source.origin, obj))
    if path is not None and (changed or set(fresh) != set(entries)):
        write_cache(path, header, fresh)
    return loaded, problems


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
            winners[key] = attrs.evolve(pack, replaces=(*first.replaces, first))
        else:
            problems.append(Problem(
                f"{pack.kind} id {pack.id!r} is already defined by {first.path} (from "
                f"{first.origin}); ids must be unique, or add 'override: true' to replace it",
                pack.path, pack.obj.pack.line_of("id"), "id"))
    kept = [winners[(p.kind, p.id)] for p in loaded
            if winners[(p.kind, p.id)].path == p.path]
    return kept, problems


def _cross_check(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Checks across packs: shared ids of formats and types, aliases, references."""
    problems: list[Problem] = []
    # quant formats, block types and KV types share one id space each across packs
    for kind, attribute in (("quantization", "formats"), ("quantization", "types"),
                            ("kv_cache", "types")):
        owners: dict[str, LoadedPack] = {}
        for pack in loaded:
            if pack.kind != kind:
                continue
            for item in getattr(pack.obj, attribute):
                if item in owners:
                    problems.append(Problem(
                        f"{item!r} is already defined by {owners[item].path}", pack.path,
                        pack.obj.pack.line_of(attribute, item), f"{attribute}.{item}"))
                owners[item] = pack
    # aliases must name one pack only
    names: dict[tuple[str, str], tuple[str, LoadedPack]] = {}
    for pack in loaded:
        for alias in (pack.id, *getattr(pack.obj, "aliases", ())):
            key = (pack.kind, _key(alias))
            if key in names and names[key][1].id != pack.id:
                other = names[key][1]
                problems.append(Problem(
                    f"name {alias!r} also refers to {other.kind} {other.id!r} ({other.path})",
                    pack.path, pack.obj.pack.line_of("aliases"), "aliases"))
            names.setdefault(key, (alias, pack))
    numbers = {name for p in loaded if p.kind == "formulas" for name in p.obj.formulas} | \
        {name for p in loaded if p.kind == "inputs" for name in p.obj.inputs}
    for pack in loaded:
        if pack.kind == "engine":
            from .launch import template_problems

            for field, message in template_problems(pack.obj, numbers):
                problems.append(Problem(message, pack.path,
                                        pack.obj.pack.line_of(*(int(p) if p.isdigit() else p for p in field.split("."))), field))
    problems += _check_profiles(loaded)
    problems += _check_block_types(loaded)
    problems += _check_measurements(loaded)
    format_ids = {f for p in loaded if p.kind == "quantization" for f in p.obj.formats}
    for pack in loaded:
        wanted = getattr(pack.obj, "checkpoint_format", None) if pack.kind == "model" else None
        if wanted is not None and wanted not in format_ids:
            problems.append(Problem(f"unknown format {wanted!r}"
                                    f"{_did_you_mean(wanted, format_ids)}", pack.path,
                                    pack.obj.pack.line_of("checkpoint_format"),
                                    "checkpoint_format"))
    families = {p.id for p in loaded if p.kind == "architecture"}
    for pack in loaded:
        if pack.kind == "model" and pack.obj.family not in families:
            close = difflib.get_close_matches(pack.obj.family, sorted(families), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else \
                f"; families are {', '.join(sorted(families))}"
            problems.append(Problem(f"unknown architecture family {pack.obj.family!r}{hint}",
                                    pack.path, pack.obj.pack.line_of("family"), "family"))
    hardware = {p.id for p in loaded if p.kind == "hardware"}
    for pack in loaded:
        if pack.kind == "provider":
            offer_ids = set()
            for offer in pack.obj.offers:
                line = pack.obj.pack.line_of("offers", offer.index, "hardware")
                if offer.hardware not in hardware:
                    hint = _did_you_mean(offer.hardware, hardware)
                    problems.append(Problem(f"unknown hardware {offer.hardware!r}{hint}",
                                            pack.path, line, f"offers.{offer.index}.hardware"))
                if offer.id in offer_ids:
                    problems.append(Problem(f"offer id {offer.id!r} is used twice", pack.path,
                                            pack.obj.pack.line_of("offers", offer.index, "id"),
                                            f"offers.{offer.index}.id"))
                offer_ids.add(offer.id)
    return problems


def _check_profiles(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Profiles: one default, known parents without cycles, formula packs naming a
    profile that exists."""
    problems: list[Problem] = []
    profiles = {p.id: p for p in loaded if p.kind == "profile"}
    defaults = [p for p in profiles.values() if p.obj.default]
    if profiles and not defaults:
        first = next(iter(profiles.values()))
        problems.append(Problem("no profile says 'default: true'; exactly one must",
                                first.path, first.obj.pack.line_of("id"), "default"))
    for extra in defaults[1:]:
        problems.append(Problem(f"profile {defaults[0].id!r} ({defaults[0].path}) is already "
                                "the default; only one profile may say 'default: true'",
                                extra.path, extra.obj.pack.line_of("default"), "default"))

    def unknown(name: str) -> str:
        close = difflib.get_close_matches(name, sorted(profiles), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else \
            (f"; profiles are {', '.join(sorted(profiles))}" if profiles else
             "; no profile pack is loaded")
        return f"unknown profile {name!r}{hint}"

    for pack in profiles.values():
        parent, seen = pack.obj.extends, [pack.id]
        while parent is not None:
            if parent not in profiles:
                problems.append(Problem(unknown(parent), pack.path,
                                        pack.obj.pack.line_of("extends"), "extends"))
                break
            if parent in seen:
                problems.append(Problem("profiles extend each other in a cycle: "
                                        + " → ".join([*seen, parent]), pack.path,
                                        pack.obj.pack.line_of("extends"), "extends"))
                break
            seen.append(parent)
            parent = profiles[parent].obj.extends
    for pack in loaded:
        if pack.kind == "formulas" and pack.obj.profile is not None \
                and pack.obj.profile not in profiles:
            problems.append(Problem(unknown(pack.obj.profile), pack.path,
                                    pack.obj.pack.line_of("profile"), "profile"))
    return problems


def _did_you_mean(value: str, options: Iterable[str]) -> str:
    """``; did you mean 'x'?`` for the closest of ``options``, or nothing."""
    close = difflib.get_close_matches(value, sorted(options), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _check_measurements(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Every measurement names packs that exist (its scenario must be one fitproof can
    evaluate)."""
    known = {
        "model": {p.id for p in loaded if p.kind == "model"},
        "hardware": {p.id for p in loaded if p.kind == "hardware"},
        "engine": {p.id for p in loaded if p.kind == "engine"},
        "quant": {f for p in loaded if p.kind == "quantization" for f in p.obj.formats},
        "kv": {t for p in loaded if p.kind == "kv_cache" for t in p.obj.types},
    }
    problems = []
    for pack in loaded:
        if pack.kind != "measurements":
            continue
        for index, row in enumerate(pack.obj.rows):
            for field, ids in known.items():
                value = getattr(row, field)
                if value not in ids:
                    problems.append(Problem(f"unknown {field} {value!r}"
                                            f"{_did_you_mean(value, ids)}", pack.path,
                                            pack.obj.pack.line_of("rows", index, field),
                                            f"rows.{index}.{field}"))
    return problems


def _check_block_types(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Every block type a format names exists, and a format with tensors covers every
    tensor class (directly, or through its fallbacks)."""
    types = {tid for p in loaded if p.kind == "quantization" for tid in p.obj.types}
    problems: list[Problem] = []
    for pack in loaded:
        if pack.kind != "quantization":
            continue
        for fid, fmt in pack.obj.formats.items():
            for tensor_class, type_id in fmt.tensors.items():
                if type_id not in types:
                    problems.append(Problem(
                        f"unknown block type {type_id!r}{_did_you_mean(type_id, types)}",
                        pack.path,
                        pack.obj.pack.line_of("formats", fid, "tensors", tensor_class),
                        f"formats.{fid}.tensors.{tensor_class}"))
            if fmt.tensors:
                missing = [c for c in TENSOR_CLASSES if type_of(fmt, c) is None
                           and getattr(fmt, f"bpw_{c}") is None]
                if missing:
                    problems.append(Problem(
                        f"tensors name no type for {', '.join(missing)}; add 'default'",
                        pack.path, pack.obj.pack.line_of("formats", fid, "tensors"),
                        f"formats.{fid}.tensors"))
    return problems
