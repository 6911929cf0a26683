"""The registry: every loaded pack indexed by kind and id, with lookups by id or alias.

Loading and linking packs into a registry is ``registry/linking.py``; the cross-pack checks are
``registry/checks.py``; what selections choose from is ``registry/candidates.py``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..errors import InputError, ListedModelError, PackError, Problem, UnknownIdError
from ..specs import (KINDS, BlockType, CatalogPack, EngineSpec, HardwareSpec,
                     ImporterPack, KVCachePack, KVCacheType, MeasurementPack, ModelSpec, PackFile,
                     ProfilePack, Provider, QuantFormat, QuantizationPack, ReportPack,
                     ScenarioPack, WorkloadSpec)
from ..views.formats import Formats
from ..views.results import LoadedPack, Override, names_machine
from .candidates import CandidatePool
from .graph import FormulaGraph
from .names import matching_ids, name_key, name_stages
from .namespaces import Entity
from .overrides import builtin_overrides
from .profiles import calibrated_engines, profile_graph
from .quant_formats import resolve_format
from .questions import Question, merged_questions

KINDS_WITH_NAMES = ("model", "hardware", "provider", "quant", "kv", "engine", "scenario",
                    "workload", "profile", "host")
HOST_BACKEND = "cpu"  # hardware packs of this backend are hosts (schemas/hardware.schema.json)
_KIND_WORDS = {"quant": "quantization", "kv": "KV cache type", "host": "host (cpu hardware pack)"}


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
        #: every pack object by kind and id, for every kind of the kinds table
        self.by_kind: dict[str, dict[str, Any]] = {kind.kind: {} for kind in KINDS}
        for pack in self.packs:
            self.by_kind[pack.kind][pack.id] = pack.obj
        # a calibrated profile's engine constants replace the engine packs' fitted figures
        #: engine id → the fields a calibrated profile gives it, and where they are written
        self.calibrated: dict[str, dict[str, tuple[PackFile, str]]] = {}
        for engine_id, (engine, moved) in calibrated_engines(self.packs, profile).items():
            self.by_kind["engine"][engine_id] = engine
            self.calibrated[engine_id] = moved
        # typed names for the kinds the core reads
        self.profiles: dict[str, ProfilePack] = self.by_kind["profile"]
        self.models: dict[str, ModelSpec] = self.by_kind["model"]
        self.hardware: dict[str, HardwareSpec] = self.by_kind["hardware"]
        self.providers: dict[str, Provider] = self.by_kind["provider"]
        self.engines: dict[str, EngineSpec] = self.by_kind["engine"]
        self.scenarios: dict[str, ScenarioPack] = self.by_kind["scenario"]
        self.workloads: dict[str, WorkloadSpec] = self.by_kind["workload"]
        self.catalogs: dict[str, CatalogPack] = self.by_kind["catalog"]
        self.importers: dict[str, ImporterPack] = self.by_kind["importer"]
        #: public speed measurements, by pack id (fitproof validate scores against them)
        self.measurements: dict[str, MeasurementPack] = self.by_kind["measurements"]
        reports: list[ReportPack] = list(self.by_kind["report"].values())
        self.report: ReportPack | None = reports[-1] if reports else None
        # formats, block types and KV types: one id space each across their packs
        self.quant_formats: dict[str, tuple[QuantFormat, QuantizationPack]] = {}
        self.block_types: dict[str, tuple[BlockType, str]] = {}
        self.kv_types: dict[str, tuple[KVCacheType, KVCachePack]] = {}
        for quantization in self.by_kind["quantization"].values():
            for fid, fmt in quantization.formats.items():
                self.quant_formats[fid] = (fmt, quantization)
            for tid, block in quantization.types.items():
                self.block_types[tid] = (block, quantization.pack.at("types", tid))
        for kv_pack in self.by_kind["kv_cache"].values():
            for tid, kv in kv_pack.types.items():
                self.kv_types[tid] = (kv, kv_pack)
        self.quant_formats = {fid: (resolve_format(fmt, self.block_types), pack)
                              for fid, (fmt, pack) in self.quant_formats.items()}
        self._entities: dict[tuple[str, str], Entity] = {}
        self._overrides: tuple[Override, ...] | None = None
        self._candidates: CandidatePool | None = None
        # per kind: id → names, and each matching stage's name → ids (built on first use)
        self._name_tables: dict[str, dict[str, list[str]]] = {}
        self._name_index: dict[str, tuple[dict[str, set[str]], ...]] = {}

    # -- lookups ----------------------------------------------------------------------------
    def _names(self, kind: str) -> dict[str, list[str]]:
        """id → [id, aliases...] for one kind (built once per kind)."""
        if kind in self._name_tables:
            return self._name_tables[kind]
        tables: dict[str, Mapping[str, Any]] = {
            "model": self.models, "hardware": self.hardware, "provider": self.providers,
            "engine": self.engines, "scenario": self.scenarios, "workload": self.workloads,
            "profile": self.profiles,
            "quant": {k: v[0] for k, v in self.quant_formats.items()},
            "kv": {k: v[0] for k, v in self.kv_types.items()},
            # a host is a processor and its system memory: a hardware pack of backend cpu
            "host": {k: v for k, v in self.hardware.items() if v.backend == HOST_BACKEND},
        }
        self._name_tables[kind] = {key: _names_of(key, obj) for key, obj in tables[kind].items()}
        return self._name_tables[kind]

    def _index(self, kind: str) -> tuple[dict[str, set[str]], ...]:
        """For each matching stage of :meth:`resolve` (as written, ignoring case, ignoring
        punctuation): the ids each form of a name belongs to. Built once per kind, so a
        lookup does not scan every pack."""
        if kind not in self._name_index:
            self._name_index[kind] = name_stages(self._names(kind))
        return self._name_index[kind]

    def names_of_kind(self, kind: str) -> dict[str, list[str]]:
        """Every ``kind`` pack's id → the names it answers to (see :meth:`resolve`)."""
        return {key: list(names) for key, names in self._names(kind).items()}

    def named(self, name: str, kind: str | None = None) -> list[tuple[str, str]]:
        """``(kind, id)`` of the packs whose id or alias is ``name``, matched as
        :meth:`resolve` matches (exactly, ignoring case, then ignoring punctuation), among the
        kinds whose class declares ``aliases`` (the pack-kind table), or of ``kind``."""
        wanted = name.strip()
        tables = [(entry.kind, self.by_kind[entry.kind]) for entry in KINDS
                  if entry.kind == kind
                  or (not kind and "aliases" in attrs.fields_dict(entry.spec))]
        for match in (lambda n: n == wanted, lambda n: n.casefold() == wanted.casefold(),
                      lambda n: name_key(n) == name_key(wanted)):
            found = [(pack_kind, key) for pack_kind, table in tables
                     for key, obj in table.items()
                     if any(map(match, (key, *getattr(obj, "aliases", ()))))]
            if found:
                return found
        return []

    def known(self, kind: str, name: str) -> list[str]:
        """The ids of the ``kind`` packs called ``name`` as :meth:`resolve` matches it (id,
        alias or recorded Hugging Face repository); empty when none is."""
        return list(matching_ids(self._index(kind), name.strip()))

    def resolve(self, kind: str, name: str) -> str:
        """The id of the ``kind`` pack called ``name`` (id or alias, case-insensitive).

        Raises :class:`UnknownIdError` with the closest ids when nothing matches.
        """
        names = self._names(kind)
        wanted = name.strip()
        hits = matching_ids(self._index(kind), wanted)
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise UnknownIdError(kind, name, hits)
        if kind == "model":
            self._raise_if_listed(wanted)
        if kind == "hardware" and names_machine(wanted):
            raise InputError(f"{name!r} lists several devices: fitproof estimate and explain "
                             "take a machine of unlike devices; here, name one hardware pack")
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

    def _raise_if_listed(self, name: str) -> None:
        """A :class:`ListedModelError` when a model listing names ``name`` (ignoring case
        and punctuation, as names match)."""
        for listing in self.by_kind["model-listing"].values():
            for entry in listing.models:
                if name_key(entry.name) == name_key(name):
                    raise ListedModelError(entry.name, entry.stated, entry.where,
                                           entry.missing, entry.config, entry.hf_repo)

    @property
    def overrides(self) -> tuple[Override, ...]:
        """Every built-in pack and formula a pack of another origin replaced."""
        if self._overrides is None:
            self._overrides = builtin_overrides(self.packs, self.graph)
        return self._overrides

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
            obj: ModelSpec | HardwareSpec | EngineSpec | Provider | WorkloadSpec
            if namespace == "model":
                obj = self.models[id]
                entity = Entity("model", id, obj, obj.pack, (), obj.source)
            elif namespace in ("hardware", "host"):
                obj = self.hardware[id]
                entity = Entity(namespace, id, obj, obj.pack, (), obj.source)
            elif namespace in ("engine", "provider", "workload"):
                packs: dict[str, Mapping[str, EngineSpec | Provider | WorkloadSpec]] = {
                    "engine": self.engines, "provider": self.providers, "workload": self.workloads}
                obj = packs[namespace][id]
                moved = {name: (pack, ("engines", id)) for name, (pack, id) in
                         self.calibrated.get(id, {}).items()} if namespace == "engine" else {}
                entity = Entity(namespace, id, obj, obj.pack, (), obj.source, moved)
            elif namespace == "quant":
                fmt, pack = self.quant_formats[id]
                entity = Entity("quant", id, fmt, pack.pack, ("formats", id),
                                fmt.source or pack.source)
            elif namespace == "kv":
                kv, kv_pack = self.kv_types[id]
                entity = Entity("kv", id, kv, kv_pack.pack, ("types", id),
                                kv.source or kv_pack.source)
            else:
                raise KeyError(namespace)
            self._entities[key] = entity
        return self._entities[key]

    def candidates(self) -> CandidatePool:
        """Everything a selection can choose from, built on first use, in a stable order."""
        if self._candidates is None:
            self._candidates = CandidatePool(self)
        return self._candidates

    @property
    def questions(self) -> dict[str, Question]:
        """What ``fitproof solve`` answers, by question name (registry/questions.py)."""
        return merged_questions(list(self.by_kind["questions"].values()))

    @property
    def accelerators(self) -> dict[str, HardwareSpec]:
        """Hardware packs that are accelerators: all but the hosts (backend cpu), which
        estimates may target but tables of accelerators and recommendations leave out."""
        return {k: v for k, v in self.hardware.items() if v.backend != HOST_BACKEND}


def _names_of(key: str, obj: Any) -> list[str]:
    """Every name a pack answers to: its id and aliases, each also after its vendor's name as
    device tools print it (``NVIDIA GeForce RTX 4090``: vendor ``NVIDIA``, alias
    ``GeForce RTX 4090``), and the Hugging Face repository it records (``Qwen/Qwen3-8B``)."""
    names = [key, *getattr(obj, "aliases", ())]
    vendor = getattr(obj, "vendor", None)
    if isinstance(vendor, str) and vendor:
        names += [f"{vendor} {n}" for n in list(names)
                  if not n.casefold().startswith(vendor.casefold())]
    repo = getattr(obj, "hf_repo", None)
    if isinstance(repo, str) and repo:
        names.append(repo)
    return names

