"""An estimate as text (the headline card of the seed pages) and as JSON (its contract).

Both load nothing beyond the view: a single estimate from a snapshot renders with them."""

from __future__ import annotations

import json
import textwrap

from ..views.estimate import EstimateView
from .display import display_number, signed, significant
from .escape import terminal


def _q(result: EstimateView, name: str, unit: str = "", prefix: str = "") -> str:
    """``name`` as displayed, with ``prefix`` and `` unit``; a bare ``n/a`` when unknown.
    Dollar amounts keep their trailing zeros ($0.50, not $0.5)."""
    quantity = result.quantities.get(name)
    if quantity is None or quantity.value is None:
        return "n/a"
    text = prefix + display_number(quantity.value, quantity.precision, quantity.display,
                                   keep_zeros=prefix == "$")
    return f"{text} {unit}" if unit else text


def _banded(result: EstimateView, name: str, unit: str) -> str:
    """``~value unit (low–high)``: a speed with the error band its profile gives, if any."""
    text = _q(result, name, unit, "~")
    low, high = (result.quantities.get(f"{name}_{edge}") for edge in ("low", "high"))
    if text == "n/a" or low is None or high is None or low.value is None or high.value is None:
        return text
    return (f"{text} ({display_number(low.value, low.precision, low.display)}–"
            f"{display_number(high.value, high.precision, high.display)})")


def _host(result: EstimateView) -> str:
    """Which machine's memory holds the offloaded weights, when some are offloaded."""
    if "host_bandwidth_gbs" not in result.quantities:  # a profile without a host term
        return ""
    if not result.value("offload_gib"):  # nothing kept there: no host to name
        return ""
    return f" (host: {result.host_name})"


def _unknown_verdict(result: EstimateView) -> str:
    """Why no verdict rule could decide: the first step where the unknown starts."""
    if result.unknown_cause is None:
        return "Unknown: figures are missing"
    return f"Unknown: {result.unknown_cause}"


def _number(value: float | None, precision: int = 2) -> str:
    return "n/a" if value is None else display_number(value, precision)


def _machine_lines(result: EstimateView) -> list[str]:
    """A machine of unlike devices: each device's layers, what it must hold of what it may
    fill, and its own verdict."""
    lines = ["    Per device                (layer split; the verdict is the worst device's)"]
    for device in result.devices:
        verdict = device.verdict.label if device.verdict else "Unknown"
        lines += [f"      {device.name}: {device.layers} layers, "
                  f"{_number(device.required_gib)} of {_number(device.usable_gib)} GiB usable",
                  f"        weights {_number(device.weights_gib)} · KV "
                  f"{_number(device.kv_gib)} · engine {_number(device.overhead_gib)} GiB · "
                  f"{verdict}"]
    return lines


def _override_lines(result: EstimateView) -> list[str]:
    """Each built-in pack or formula a pack replaced: the numbers are not fitproof's own."""
    lines = []
    for override in result.overrides:
        lines += textwrap.wrap(
            f"Replaced: the built-in {override.what} ({override.replaced}) by "
            f"{override.location} ({override.origin})", 78, initial_indent="  ",
            subsequent_indent="    ", break_on_hyphens=False, break_long_words=False)
    return lines


def _launch_lines(result: EstimateView) -> list[str]:
    """The launch command an estimate carries (a machine of unlike devices)."""
    if not result.launch:
        return []
    return ["", "  Launch", *(f"    {line}" for line in result.launch.splitlines())]


def _device_lines(result: EstimateView, gpus: int) -> list[str]:
    """How several devices share the model: per device, as the fit is judged."""
    if result.devices:
        return _machine_lines(result)
    if gpus < 2 or "device_required_gib" not in result.quantities:
        return []
    tensor = result.value("tensor_parallel") or 1
    split = f"tensor parallel over {int(tensor)}" if tensor > 1 else "layer split"
    return [f"    Per device                {_q(result, 'device_required_gib', 'GiB')} of "
            f"{_q(result, 'device_usable_gib', 'GiB')} usable ({split})"]


def _kv_capacity_lines(result: EstimateView) -> list[str]:
    """What an engine that turns its budget into KV cache logs: tokens and concurrency."""
    if not result.kv_from_budget or result.value("kv_capacity_tokens") is None:
        return []
    tokens = int(result.value("kv_capacity_tokens") or 0)
    lines = [f"    KV cache capacity         {tokens:,} tokens "
             f"({_q(result, 'max_concurrency')}x the context)"]
    batch = int(result.scenario.inputs.get("batch", 1))
    running = result.value("running_sequences")
    if running is not None and running < batch:
        lines.append(f"    Running at once           {int(running)} of the {batch} sequences "
                     "(the engine queues the rest)")
    return lines


def _training(result: EstimateView) -> bool:
    """A fine-tuning workload: it keeps gradients, optimizer state or activations."""
    return bool(result.value("training_state_gib") or result.value("activations_gib"))


def _all_devices(result: EstimateView, name: str, per_device: str, gpus: int) -> str:
    """A part every device holds: all devices together (``name``), then one device's share."""
    if gpus < 2 or name not in result.quantities or per_device not in result.quantities:
        return _q(result, name if name in result.quantities else per_device, "GiB")
    return f"{_q(result, name, 'GiB')} ({_q(result, per_device, 'GiB')} per device)"


def _memory_parts(result: EstimateView, gpus: int) -> list[str]:
    """The parts of the requirement, each as it counts toward "Required" (they add up to it)."""
    lines = [f"    Model weights             {_q(result, 'weights_gib', 'GiB')}"]
    if _training(result):
        lines += [f"    Gradients & optimizer     {_q(result, 'training_state_gib', 'GiB')}",
                  f"    Training activations      {_q(result, 'activations_gib', 'GiB')}"]
    else:
        kv = (_all_devices(result, "devices_kv_gib", "device_kv_gib", gpus)
              if "devices_kv_gib" in result.quantities else _q(result, "kv_cache_gib", "GiB"))
        buffers = _all_devices(result, "devices_overhead_gib", "overhead_gib", gpus)
        lines += [f"    KV cache & state          {kv}",
                  f"    Engine & activation       {buffers}"]
    kept = _q(result, "offload_gib", "GiB")
    minus = "-" if result.value("offload_gib") else ""
    lines.append(f"    Kept in system RAM        {minus}{kept}{_host(result)}")
    return lines


def _speed_and_cost(result: EstimateView) -> list[str]:
    """Speed and cost of serving tokens; a fine-tuning workload serves none."""
    if _training(result):
        return ["  Speed and cost", "    not estimated for a fine-tuning workload (it serves no tokens)"]
    inputs = result.scenario.inputs
    lines = [
        "  Speed",
        f"    Decode                    {_banded(result, 'decode_tps', 'tok/s')}",
        f"    Prefill                   {_banded(result, 'prefill_tps', 'tok/s')}",
        f"    Time to first token       {_q(result, 'ttft_ms', 'ms', '~')} for a "
        f"{int(inputs['prompt']):,}-token prompt",
    ]
    if "output_tps" in result.quantities:  # a profile that models requests coming and going
        batch = int(inputs.get("batch", 1))
        burst = inputs.get("arrival") == 1
        load = (f"a burst of {batch:,}" if burst else
                f"{batch:,} request{'s' if batch != 1 else ''} in flight")
        lines += [f"    Output                    {_banded(result, 'output_tps', 'tok/s')} with "
                  f"{load}, {_q(result, 'tpot_ms', 'ms', '~')} per token after the first"]
    lines += ["", "  Cost"]
    return lines + _cost_lines(result)


def _cost_lines(result: EstimateView) -> list[str]:
    """Cost per 1M tokens on the offer the profile prices it on: the scenario's own hardware
    (``scenario_offer``) where the profile has that selection, else the cheapest offer; when
    there is none, a plain "no offer", then the cheapest other card, labelled as such."""
    own = "scenario_offer" in result.selections
    offer = result.selections.get("scenario_offer" if own else "cheapest_offer", {})
    if offer.get("label"):
        return [f"    Per 1M tokens             {_q(result, 'cost_per_mtok_usd', '', '$')} at "
                f"{_q(result, 'cloud_hourly_usd', '', '$')}/h ({offer['label']})"]
    if not own:
        return ["    Per 1M tokens             n/a (no cloud offer is known to hold this model)"]
    gpus = int(result.scenario.inputs.get("gpus", 1))
    count = f"{gpus}x " if result.scenario.machine is None else ""
    lines = [f"    Per 1M tokens             n/a: no cloud offer of {count}"
             f"{result.hardware_name} is known"]
    other = result.selections.get("cheapest_offer", {})
    if other.get("label"):
        lines += [f"    Another card              {other['label']} at "
                  f"{_q(result, 'cheapest_hourly_usd', '', '$')}/h",
                  "                              holds the model (its speed is not this "
                  "estimate's)"]
    return lines


MEASURED_SHOWN = 4  # the runs nearest the scenario's depth; --json lists every one
_METRIC_WORDS = {"decode_tps": ("Decode", "tok/s"), "prefill_tps": ("Prefill", "tok/s"),
                 "output_tps": ("Output", "tok/s"), "total_tps": ("Throughput", "tok/s"),
                 "tpot_ms": ("Per output token", "ms"), "ttft_ms": ("First token", "ms")}


def _measured_lines(result: EstimateView) -> list[str]:
    """Public runs of this model, format, device, engine and load, measured beside what the
    profile predicts for each run as measured; the figures above are predictions."""
    if not result.measured:
        return []
    lines = ["", f"  Measured ({len(result.measured)} public run"
                 f"{'s' if len(result.measured) != 1 else ''} of this setup; the figures "
                 "above are predictions)"]
    for run in result.measured[:MEASURED_SHOWN]:
        label, unit = _METRIC_WORDS.get(run.metric, (run.metric, ""))
        depth = (f"tg{run.generate} at depth {run.prompt:,}" if run.generate is not None
                 else f"pp{run.prompt:,}")
        predicted = "unknown" if run.predicted is None else significant(run.predicted)
        build = ", ".join(x for x in (run.engine_version, run.date) if x) or "build unstated"
        lines += [f"    {label:<26}{significant(run.value)} {unit} measured ({depth}); predicted "
                  f"{predicted}",
                  f"      {build}; {run.location}"]
        if run.apart:
            lines += textwrap.wrap(f"outside what the profile models: {run.apart}", 74,
                                   initial_indent="      ", subsequent_indent="      ")
    if len(result.measured) > MEASURED_SHOWN:
        lines.append(f"    {len(result.measured) - MEASURED_SHOWN} more in --json")
    return lines


def render_estimate(result: EstimateView) -> str:
    """A compact, readable summary of one scenario (fits in 80 columns)."""
    scenario = result.scenario
    inputs = scenario.inputs
    gpus = int(inputs.get("gpus", 1))
    devices = f"{gpus}x " if gpus > 1 and scenario.machine is None else ""
    verdict = result.verdict.label if result.verdict else _unknown_verdict(result)
    lines = [
        f"{result.model_name} on {devices}{result.hardware_name}",
        f"{scenario.quant} · {int(inputs['context']):,} tokens context · KV {scenario.kv} · "
        f"batch {int(inputs['batch'])} · {result.engine_name}",
        "",
        f"  {verdict}",
        *(line for warning in result.warnings
          for line in textwrap.wrap(f"Warning: {warning}", 78, initial_indent="  ",
                                    subsequent_indent="    ")),
        *([f"  {result.hardware_name} has no public datasheet: its figures are unverified",
           "  (see the notes of its pack)"] if result.hardware_unverified else []),
        *_override_lines(result),
        "",
        "  Memory",
        *_memory_parts(result, gpus),
        f"    Required                  {_q(result, 'total_gib', 'GiB')} "
        f"({_q(result, 'total_gb', 'GB')})",
        f"    Usable                    {_q(result, 'usable_gib', 'GiB')} of "
        f"{_q(result, 'physical_gb', 'GB')} physical",
        f"    Headroom                  {signed(_q(result, 'headroom_gib', 'GiB'))} "
        f"({_q(result, 'utilization')} utilization)",
        *_device_lines(result, gpus),
        *_kv_capacity_lines(result),
        "",
        *_speed_and_cost(result),
        *_measured_lines(result),
        *_launch_lines(result),
    ]
    on = scenario.hardware
    if scenario.machine is not None:  # the devices as --on lists them
        on = ",".join(scenario.machine.devices)
        if scenario.machine.given_split:
            on += " --tensor-split " + ",".join(f"{p:g}" for p in scenario.machine.proportions)
    lines += ["", f"Every number has a derivation: fitproof explain total_gib {scenario.model} "
                  f"--on {on}"]
    return terminal("\n".join(lines))


def render_estimate_json(result: EstimateView) -> str:
    """``fitproof estimate --json``: the view's JSON contract, indented."""
    return json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n"
