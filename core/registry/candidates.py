"""What selections choose from: cloud offers, and accelerators alone or in sets of devices.

Built from the pack index on first use (``Registry.candidates()``), in a stable order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Protocol

from ..specs import HardwareSpec, Location, Provider
from .namespaces import Entity, FieldValue
from .rows import Candidate


class PackIndex(Protocol):
    """What the candidates are built from (a :class:`fitproof.registry.index.Registry`)."""

    providers: dict[str, Provider]
    hardware: dict[str, HardwareSpec]

    @property
    def accelerators(self) -> dict[str, HardwareSpec]: ...

    def entity(self, namespace: str, id: str) -> Entity: ...


def offer_candidates(index: PackIndex) -> list[Candidate]:
    offers = []
    for provider in sorted(index.providers.values(), key=lambda p: (p.rank or 10**6, p.id)):
        provider_entity = index.entity("provider", provider.id)
        for offer in provider.offers:
            offer_entity = Entity("offer", f"{provider.id}/{offer.id}", offer,
                                  provider.pack, ("offers", offer.index),
                                  offer.source or provider.source)
            hardware = index.hardware[offer.hardware]
            gpus = FieldValue("gpus", float(offer.gpus.value), "devices",
                              provider.pack.locate("offers", offer.index, "gpus"))
            label = (f"{provider.name} · {int(offer.gpus.value)}x {hardware.name}"
                     + (f" ({offer.tier})" if offer.tier else ""))
            offers.append(Candidate(offer_entity.id, label,
                                    {"offer": offer_entity,
                                     "hardware": index.entity("hardware", hardware.id),
                                     "provider": provider_entity},
                                    {"gpus": gpus}))
    return offers


def hardware_candidates(index: PackIndex, counts: Sequence[int] = ()) -> list[Candidate]:
    """Every accelerator; with ``counts``, every accelerator in sets of each size."""
    result = []
    for count in counts or (None,):
        for hardware in sorted(index.accelerators.values(), key=lambda h: h.id):
            entities = {"hardware": index.entity("hardware", hardware.id)}
            if count is None:
                result.append(Candidate(hardware.id, hardware.display_name, entities))
            else:
                gpus = FieldValue("gpus", float(count), "devices",
                                  Location("a selection's device counts", None))
                label = hardware.display_name if count == 1 else \
                    f"{count}x {hardware.display_name}"
                result.append(Candidate(f"{count}x{hardware.id}", label, entities,
                                        {"gpus": gpus}))
    return result


class CandidatePool(Mapping[str, list[Candidate]]):
    """Candidate lists by collection key: 'offers', 'hardware', 'hardwarex1,2,4,8'."""

    def __init__(self, index: PackIndex):
        self._index = index
        self._lists: dict[str, list[Candidate]] = {}

    def __getitem__(self, key: str) -> list[Candidate]:
        if key not in self._lists:
            if key == "offers":
                self._lists[key] = offer_candidates(self._index)
            elif key == "hardware":
                self._lists[key] = hardware_candidates(self._index)
            elif key.startswith("hardwarex"):
                counts = [int(n) for n in key.removeprefix("hardwarex").split(",")]
                self._lists[key] = hardware_candidates(self._index, counts)
            else:
                raise KeyError(key)
        return self._lists[key]

    def __iter__(self) -> Iterator[str]:
        return iter(("offers", "hardware"))

    def __len__(self) -> int:
        return 2
