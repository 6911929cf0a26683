"""Terminal rendering of an estimate: the headline card of the seed pages, as text."""

from __future__ import annotations

from ..estimate import Estimate
from .display import display_number, signed


def _q(result: Estimate, name: str) -> str:
    quantity = result.quantities.get(name)
    if quantity is None:
        return "n/a"
    return display_number(quantity.value, quantity.precision, quantity.display)


def render_estimate(result: Estimate) -> str:
    """A compact, readable summary of one scenario (fits in 80 columns)."""
    registry, scenario = result.registry, result.scenario
    model = registry.models[scenario.model]
    hardware = registry.hardware[scenario.hardware]
    engine = registry.engines[scenario.engine]
    inputs = scenario.inputs
    gpus = int(inputs.get("gpus", 1))
    devices = f"{gpus}x " if gpus > 1 else ""
    verdict = result.verdict.label if result.verdict else "Unknown: figures are missing"
    lines = [
        f"{model.name} on {devices}{hardware.display_name}",
        f"{scenario.quant} · {int(inputs['context']):,} tokens context · KV {scenario.kv} · "
        f"batch {int(inputs['batch'])} · {engine.name}",
        "",
        f"  {verdict}",
        "",
        "  Memory",
        f"    Model weights             {_q(result, 'weights_gib')} GiB",
        f"    KV cache & state          {_q(result, 'kv_cache_gib')} GiB",
        f"    Engine & activation       {_q(result, 'overhead_gib')} GiB",
        f"    Offloaded to system RAM   {_q(result, 'offload_gib')} GiB",
        f"    Required                  {_q(result, 'total_gib')} GiB ({_q(result, 'total_gb')} GB)",
        f"    Usable                    {_q(result, 'usable_gib')} GiB of "
        f"{display_number(hardware.memory_gb.value * gpus, 0)} GB physical",
        f"    Headroom                  {signed(_q(result, 'headroom_gib'))} GiB "
        f"({_q(result, 'utilization')} utilization)",
        "",
        "  Speed",
        f"    Decode                    ~{_q(result, 'decode_tps')} tok/s",
        f"    Prefill                   ~{_q(result, 'prefill_tps')} tok/s",
        f"    Time to first token       ~{_q(result, 'ttft_ms')} ms for a "
        f"{int(inputs['prompt']):,}-token prompt",
        "",
        "  Cost",
    ]
    offer = result.selections().get("cheapest_offer", {})
    if offer.get("label"):
        lines.append(f"    Per 1M tokens             ${_q(result, 'cost_per_mtok_usd')} at "
                     f"${_q(result, 'cloud_hourly_usd')}/h ({offer['label']})")
    else:
        lines.append("    Per 1M tokens             n/a (no cloud offer holds this model)")
    lines += ["", f"Every number has a derivation: fitproof explain total_gib {scenario.model} "
                  f"--on {scenario.hardware}"]
    return "\n".join(lines)
