/* The configurator of a fitproof site page: reads the controls and the URL fragment,
 * evaluates the scenario with FitproofModel (fitproof-runtime.js) over the site's data
 * (data.js) and generated formulas (formulas.js), and shows every value in the element
 * that names its quantity (data-quantity). Nothing is computed here but through the
 * packs' formulas; this file only formats, draws and wires controls.
 */
(function () {
  "use strict";
  var data = window.FITPROOF_DATA, compiled = window.FITPROOF_FORMULAS;
  var model = new window.FitproofModel(data, compiled);
  var page = JSON.parse(document.getElementById("page-messages").textContent);
  var form = document.getElementById("configurator");
  var locale = page.locale;
  var listing = document.querySelector("[data-listing]");
  // fragment key -> input name of the packs (the rest name a pack: quant, kv, engine)
  var INPUTS = {context: "context", batch: "batch", gpus: "gpus", offload: "offload",
                hours: "hours_per_day", budget: "budget_usd", price: "electricity_usd_per_kwh"};
  var PACKS = ["quant", "kv", "engine"];
  var formats = {};
  var current = null;

  function numberFormat(digits, keepZeros) {
    var key = digits + (keepZeros ? "z" : "");
    if (!formats[key]) {
      // grouping on every number of four digits or more, as Babel writes the page's own
      // figures (CLDR's minimum-grouping rule, 1008 rather than 1.008 in Spanish, is
      // left aside so both agree)
      formats[key] = new Intl.NumberFormat(locale, {maximumFractionDigits: digits,
        minimumFractionDigits: keepZeros ? digits : 0, useGrouping: "always"});
    }
    return formats[key];
  }

  /* ``value`` of formula ``name`` as the command line shows it: rounded to the formula's
   * precision (ties away from zero), trailing zeros dropped except for dollar amounts. */
  function format(name, value) {
    if (value === null || value === undefined || !isFinite(value)) return "n/a";
    // a pick's quantity (best_single_gpu.devices_price_usd) as its formula is shown
    var f = data.formulas[name] || (data.picked[name] && data.formulas[data.picked[name][1]]) || {};
    var digits = f.precision === null || f.precision === undefined ? 2 : f.precision;
    var percent = f.display === "percent";
    var rounded = window.R.roundScalar(percent ? value * 100 : value, digits);
    if (Object.is(rounded, -0)) rounded = 0;
    var dollars = /usd/i.test(f.unit || "") || /_usd($|_)/.test(name);
    return numberFormat(Math.max(0, digits), dollars).format(rounded) + (percent ? "%" : "");
  }
  window.fitproofFormat = format;

  function fragment() {
    var state = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      if (!part) return;
      var pair = part.split("=");
      state[decodeURIComponent(pair[0])] = decodeURIComponent(pair.slice(1).join("="));
    });
    return state;
  }

  function fieldsOf(scenario) {
    var state = {quant: scenario.quant, kv: scenario.kv, engine: scenario.engine};
    Object.keys(INPUTS).forEach(function (key) {
      var v = scenario.inputs[INPUTS[key]];
      if (v !== null && v !== undefined && v === v) state[key] = v;  // unset inputs stay out
    });
    return state;
  }

  /* The scenario the controls (or the fragment) ask for, and what the command line would
   * refuse in it, by control: a value out of range, a KV precision the engine cannot
   * store, a tensor split the heads do not divide (the same messages). */
  function readScenario(state) {
    var overrides = {model: form.dataset.model, hardware: form.dataset.hardware, inputs: {}};
    var problems = {};
    PACKS.forEach(function (key) {
      if (state[key] && data.bound[key][state[key]] !== undefined) overrides[key] = state[key];
    });
    Object.keys(INPUTS).forEach(function (key) {
      var text = state[key];
      if (text === undefined || text === "") return;
      var problem = model.inputProblem(INPUTS[key], text);
      if (problem) { problems[key] = problem; return; }
      overrides.inputs[INPUTS[key]] = Number(text);
    });
    var scenario = model.scenario(overrides);
    var engine = data.engines[scenario.engine], kvTypes = engine.kv_types;
    if (kvTypes.length && kvTypes.indexOf(scenario.kv) < 0) {
      problems.kv = engine.name + " cannot store the KV cache as " + scenario.kv +
        "; it supports " + kvTypes.join(", ");
    }
    var split = model.splitProblem(scenario);
    if (split) problems.gpus = split;
    return {scenario: scenario, problems: problems};
  }

  /* Each refused control marked, and the first problem shown where the page says why. */
  function showProblems(problems, refusal) {
    Object.keys(INPUTS).concat(PACKS).forEach(function (key) {
      var control = form.elements[key];
      if (!control) return;
      if (problems[key]) { control.setAttribute("aria-invalid", "true"); control.title = problems[key]; }
      else { control.removeAttribute("aria-invalid"); control.removeAttribute("title"); }
    });
    var messages = Object.keys(problems).map(function (key) { return problems[key]; });
    if (refusal) messages.push(refusal);
    var element = document.querySelector("[data-problem]");
    element.textContent = messages.join(" · ");
    element.hidden = !messages.length;
    return messages.length > 0;
  }

  function setControls(scenario) {
    var state = fieldsOf(scenario);
    ["quant", "kv", "engine"].concat(Object.keys(INPUTS)).forEach(function (key) {
      if (!(key in state)) state[key] = "";
    });
    Object.keys(state).forEach(function (key) {
      var control = form.elements[key];
      if (control && String(control.value) !== String(state[key])) control.value = state[key];
    });
    form.elements.model.value = scenario.model;
    form.elements.hardware.value = scenario.hardware;
  }

  function stateFragment(scenario) {
    var state = fieldsOf(scenario);
    return "#" + Object.keys(state).map(function (key) {
      return encodeURIComponent(key) + "=" + encodeURIComponent(state[key]);
    }).join("&");
  }

  function verdictText(verdict) {
    return verdict ? (page.verdicts[verdict.id] || verdict.label) : page.verdicts.unknown;
  }

  /* The recommended-hardware rows: each pick's accelerator (with its device count) or
   * offer; their memory and price are data-quantity elements like any other number. */
  function recommendations(result) {
    document.querySelectorAll("[data-pick]").forEach(function (element) {
      var pick = result.picks[element.getAttribute("data-pick")];
      if (!pick || !pick.id) { element.textContent = page.none; return; }
      var facts = pick.hardware && data.page.hardware[pick.hardware];
      var slot = data.page.recommendations.filter(function (r) {
        return r.selection === element.getAttribute("data-pick"); })[0];
      var devices = slot ? result.env[slot.devices] : 1;
      if (data.page.offers[pick.id] || !facts) { element.textContent = pick.label; return; }
      element.textContent = (devices > 1 ? devices + "x " : "") + facts.name;
    });
  }

  /* Each engine's launch command for the scenario, as the report prints it: the scenario's
   * own engine from its evaluation, another with a KV precision it stores. */
  function launchCommands(scenario, result) {
    document.querySelectorAll("[data-launch]").forEach(function (element) {
      var engine = element.getAttribute("data-launch");
      var kvTypes = data.engines[engine].kv_types;
      // an engine that names no KV precisions stores any (as scenarios read it)
      var stores = !kvTypes.length || kvTypes.indexOf(scenario.kv) >= 0;
      var own = engine === scenario.engine && stores;
      var kv = stores ? scenario.kv : kvTypes[0];
      var env = own ? result.env : evaluateWith(scenario, {engine: engine, kv: kv}, true).env;
      var variant = JSON.parse(JSON.stringify(scenario));
      variant.engine = engine; variant.kv = kv;
      var launch = model.launch(engine, own ? scenario : variant, env);
      var note = document.querySelector('[data-launch-note="' + engine + '"]');
      element.textContent = launch ? launch.command : "";
      note.textContent = launch && launch.note ? launch.note : "";
      note.hidden = !(launch && launch.note);
    });
  }

  /* A refused scenario: no number is shown, the verdict says why (as the command line
   * refuses it). */
  function refused(message) {
    document.querySelectorAll("[data-quantity]").forEach(function (element) { element.textContent = "–"; });
    var verdict = document.querySelector("[data-verdict]");
    verdict.textContent = message;
    verdict.setAttribute("data-verdict", "refused");
    document.querySelector("[data-warnings]").hidden = true;
    document.querySelectorAll("[data-segment]").forEach(function (segment) { segment.style.width = "0%"; });
  }

  function show(result) {
    document.querySelectorAll("[data-quantity]").forEach(function (element) {
      var name = element.getAttribute("data-quantity");
      element.textContent = format(name, result.env[name]);
    });
    var verdict = document.querySelector("[data-verdict]");
    verdict.textContent = verdictText(result.verdict);
    verdict.setAttribute("data-verdict", result.verdict ? result.verdict.id : "unknown");
    var warnings = document.querySelector("[data-warnings]");
    warnings.textContent = result.warnings.join(" · ");
    warnings.hidden = !result.warnings.length;
    var env = result.env;
    var total = Math.max(env.usable_gib || 0, env.total_gib || 0) || 1;
    document.querySelectorAll("[data-segment]").forEach(function (segment) {
      var name = segment.getAttribute("data-segment");
      var v = env[name];  // the free part is the headroom; a negative one shows no segment
      segment.style.width = (isFinite(v) && v > 0 ? Math.min(100, 100 * v / total) : 0) + "%";
    });
  }

  function evaluateWith(scenario, changes, full) {
    var next = JSON.parse(JSON.stringify(scenario));
    Object.keys(changes).forEach(function (key) {
      if (key === "inputs") Object.assign(next.inputs, changes.inputs);
      else next[key] = changes[key];
    });
    return model.evaluate(next, {selections: !!full});
  }

  function cell(row, text, cls) {
    var td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    row.appendChild(td);
    return td;
  }

  function quantMatrix(scenario) {
    var body = document.querySelector("#quant-matrix tbody");
    body.textContent = "";
    var info = data.models[scenario.model];
    Object.keys(data.page.quants).forEach(function (quant) {
      var fmt = data.quants[quant];
      if (!fmt || fmt.size_basis === "checkpoint" || (fmt.requires_experts && !info.experts)) return;
      var result = evaluateWith(scenario, {quant: quant}, false);
      if (!isFinite(result.env.weights_gib)) return;
      var row = document.createElement("tr");
      if (quant === scenario.quant) row.className = "current";
      cell(row, quant);
      cell(row, format("weights_gib", result.env.weights_gib), "num");
      cell(row, format("total_gib", result.env.total_gib), "num");
      cell(row, format("decode_tps", result.env.decode_tps), "num");
      cell(row, verdictText(result.verdict), result.verdict ? "v-" + result.verdict.id : "");
      body.appendChild(row);
    });
  }

  var SVG = "http://www.w3.org/2000/svg";
  function svg(name, attributes, parent) {
    var element = document.createElementNS(SVG, name);
    Object.keys(attributes).forEach(function (key) { element.setAttribute(key, attributes[key]); });
    if (parent) parent.appendChild(element);
    return element;
  }

  function contextChart(scenario) {
    var chart = document.getElementById("chart-contexts");
    chart.textContent = "";
    var points = [];
    for (var tokens = 2048; tokens <= 262144; tokens *= 2) {
      var result = evaluateWith(scenario, {inputs: {context: tokens}}, false);
      if (model.checks(scenario, result.env).refusal) continue;  // past the trained context
      if (isFinite(result.env.total_gib)) points.push([tokens, result.env.total_gib, result.env.usable_gib]);
    }
    if (!points.length) return;
    var top = Math.max.apply(null, points.map(function (p) { return Math.max(p[1], p[2] || 0); })) || 1;
    var x = function (i) { return 40 + i * (420 / Math.max(1, points.length - 1)); };
    var y = function (v) { return 180 - 160 * v / top; };
    svg("line", {x1: 40, y1: y(points[0][2]), x2: 460, y2: y(points[0][2]), "class": "limit"}, chart);
    // the axis: zero, the top of the scale and the usable memory (the dashed line), in GiB
    svg("line", {x1: 36, y1: 20, x2: 36, y2: 180, "class": "axis"}, chart);
    var ticks = [[0, ""], [top, " GiB"], [points[0][2], ""]];
    ticks.forEach(function (tick, i) {
      // a tick too close to one drawn before it is left out (labels would overlap)
      if (!isFinite(tick[0]) || ticks.slice(0, i).some(function (t) { return Math.abs(y(t[0]) - y(tick[0])) < 12; })) return;
      svg("text", {x: 32, y: y(tick[0]) + 4, "text-anchor": "end"}, chart).textContent =
        format("total_gib", tick[0]) + tick[1];
    });
    svg("polyline", {points: points.map(function (p, i) { return x(i) + "," + y(p[1]); }).join(" "),
                     "class": "series"}, chart);
    points.forEach(function (p, i) {
      var dot = svg("circle", {cx: x(i), cy: y(p[1]), r: 3, "class": p[1] <= p[2] ? "ok" : "over"}, chart);
      svg("title", {}, dot).textContent = (p[0] / 1024) + "K: " + format("total_gib", p[1]) + " GiB";
      svg("text", {x: x(i), y: 196, "text-anchor": "middle"}, chart).textContent = (p[0] / 1024) + "K";
    });
  }

  function compareChart(scenario) {
    var chart = document.getElementById("chart-compare");
    chart.textContent = "";
    var rows = [];
    Object.keys(data.page.hardware).forEach(function (id) {
      if (!data.page.hardware[id].accelerator) return;
      var result = evaluateWith(scenario, {hardware: id}, false);
      if (result.verdict && result.verdict.id !== "exceeds" && isFinite(result.env.decode_tps)) {
        rows.push([id, result.env.decode_tps]);
      }
    });
    rows.sort(function (a, b) { return b[1] - a[1]; });
    var shown = rows.slice(0, 10);
    var best = shown.length ? shown[0][1] : 1;
    shown.forEach(function (row, i) {
      var g = svg("g", {"class": row[0] === scenario.hardware ? "current" : ""}, chart);
      svg("text", {x: 0, y: 14 + i * 19}, g).textContent = data.page.hardware[row[0]].name;
      svg("rect", {x: 170, y: 4 + i * 19, height: 13, width: Math.max(1, 250 * row[1] / best)}, g);
      svg("text", {x: 175 + 250 * row[1] / best, y: 14 + i * 19}, g).textContent = format("decode_tps", row[1]);
    });
  }

  function providers(scenario, result) {
    var body = document.querySelector("#providers tbody");
    body.textContent = "";
    var name = "provider_offers";
    if (!data.selections[name]) return;
    var bound = model.bound(scenario);
    var monthly = data.formulas.offer_monthly_usd ? "offer_monthly_usd" : null;
    (data.collections[data.selections[name].collection] || []).forEach(function (candidate, index) {
      var facts = data.page.offers[candidate.id];
      // the offers the profile prices the scenario on (its own hardware and device count)
      if (!facts || !model.matchesCandidate(name, index, result.env, bound)) return;
      var child = model.candidateEnv(name, index, result.env, bound);
      data.selections[name].recompute.forEach(function (f) { child[f] = window.R.finite(compiled.formulas[f](child)); });
      var fits = compiled.where[name](child) === 1;
      data.candidate_order.forEach(function (f) { child[f] = window.R.finite(compiled.formulas[f](child)); });
      var row = document.createElement("tr");
      cell(row, facts.provider);
      cell(row, facts.gpus + "x " + facts.hardware + (facts.tier ? " (" + facts.tier + ")" : ""));
      cell(row, format("physical_gb", child["hardware.memory_gb"] * facts.gpus) + " GB", "num");
      cell(row, "$" + format("cloud_hourly_usd", child["offer.hourly_usd"]), "num");
      if (monthly) cell(row, "$" + format(monthly, child[monthly]), "num");
      cell(row, page.billing[facts.billing] || facts.billing || "");
      cell(row, fits ? page.yes : page.no, fits ? "v-fits" : "v-exceeds");
      var deploy = cell(row, "");
      if (facts.url) {
        var link = document.createElement("a");
        link.href = facts.url; link.rel = "noopener"; link.textContent = page.deploy;
        deploy.appendChild(link);
      }
      body.appendChild(row);
    });
  }

  function finetune(scenario) {
    var body = document.querySelector("#finetune tbody");
    body.textContent = "";
    Object.keys(data.page.workloads).forEach(function (workload) {
      var quant = data.workloads[workload].quant || scenario.quant;
      var result = evaluateWith(scenario, {workload: workload, quant: quant}, false);
      var row = document.createElement("tr");
      cell(row, data.page.workloads[workload].name);
      cell(row, format("total_gib", result.env.total_gib), "num");
      cell(row, verdictText(result.verdict), result.verdict ? "v-" + result.verdict.id : "");
      body.appendChild(row);
    });
  }

  function refs(tree, found) {
    if (tree[0] === "ref") { if (found.indexOf(tree[1]) < 0) found.push(tree[1]); return found; }
    tree.slice(1).forEach(function (part) {
      if (Array.isArray(part) && part.length && typeof part[0] === "string") refs(part, found);
      else if (Array.isArray(part)) part.forEach(function (item) { if (Array.isArray(item)) refs(item, found); });
    });
    return found;
  }

  function whereIs(name, scenario, bound) {
    if (data.formulas[name]) return data.formulas[name].source;
    if (data.dispatched_sources[name]) return data.dispatched_sources[name][data.models[scenario.model].family] || "";
    if (data.inputs[name]) return data.inputs[name].at;
    var parts = name.split("."), entity = bound[parts[0]];
    if (entity && entity.at && entity.at[parts[1]]) return entity.at[parts[1]];
    return "";
  }

  function derive(name) {
    if (!current) return;
    var scenario = current.scenario, env = current.result.env, bound = model.bound(scenario);
    var shownName = name, pickOf = data.picked[name];
    if (pickOf) {  // a pick's quantity: its formula, evaluated with the pick's figures
      var chosen = current.result.chosen[pickOf[0]];
      var value = env[name];
      env = chosen >= 0 ? model.candidateEnv(pickOf[0], chosen, env, bound) : Object.assign(Object.create(null), env);
      data.selections[pickOf[0]].picked[pickOf[1]].forEach(function (f) {
        env[f] = window.R.finite(compiled.formulas[f](env));
      });
      env[name] = value;
      name = pickOf[1];
      if (chosen >= 0) {  // the pick's packs are where its figures stand
        var candidate = data.collections[data.selections[pickOf[0]].collection][chosen];
        bound = Object.assign({}, bound);
        Object.keys(candidate.entities).forEach(function (ns) { bound[ns] = data.entities[candidate.entities[ns]]; });
      }
    }
    var family = data.models[scenario.model].family;
    var tree = data.formulas[name] ? data.formulas[name].tree : (data.dispatched[name] || {})[family];
    var text = data.expressions[name] || ((data.dispatched_expressions[name] || {})[family]) || name;
    document.getElementById("derivation-name").textContent = shownName;
    document.getElementById("derivation-value").textContent = format(name, env[name]) + " " + ((data.formulas[name] || {}).unit || "");
    document.getElementById("derivation-formula").textContent = text;
    var names = tree ? refs(tree, []) : [];
    document.getElementById("derivation-substituted").textContent = names.map(function (ref) {
      return ref + " = " + (isFinite(env[ref]) ? String(env[ref]) : "n/a");
    }).join("\n");
    var list = document.getElementById("derivation-sources");
    list.textContent = "";
    [name].concat(names).forEach(function (ref) {
      var item = document.createElement("li");
      item.innerHTML = "";
      var code = document.createElement("code");
      code.textContent = ref;
      item.appendChild(code);
      item.appendChild(document.createTextNode(" — " + (whereIs(ref, scenario, bound) || "?")));
      list.appendChild(item);
    });
    var dialog = document.getElementById("derivation");
    if (dialog.showModal) dialog.showModal(); else dialog.setAttribute("open", "");
  }

  var timer = null;
  function simulate() {
    if (!current) return;
    var env = current.result.env, out = document.getElementById("stream");
    clearTimeout(timer);
    out.textContent = "";
    if (!(env.decode_tps > 0)) return;
    var count = 0, interval = 1000 / env.decode_tps;
    function next() {
      out.textContent += (count % 12 === 11 ? "tok\n" : "tok ");
      count += 1;
      if (count < 200) timer = setTimeout(next, interval);
    }
    timer = setTimeout(next, isFinite(env.ttft_ms) ? env.ttft_ms : 0);
  }

  function update(fromControls) {
    var state = fromControls ? {} : fragment();
    if (fromControls) {
      ["quant", "kv", "engine"].concat(Object.keys(INPUTS)).forEach(function (key) {
        var control = form.elements[key];
        if (!control) return;
        // a number box whose text is not a number reports an empty value: keep it refused
        state[key] = control.validity && control.validity.badInput ? "not a number" : control.value;
      });
    }
    var read = readScenario(state), scenario = read.scenario;
    var result = model.evaluate(scenario);
    var checks = model.checks(scenario, result.env);
    result.warnings = checks.warnings;
    current = {scenario: scenario, result: result};
    if (!fromControls) setControls(scenario);
    var problem = showProblems(read.problems, checks.refusal);
    if (problem) {  // what the command line refuses, the page refuses with the same words
      current = null;
      refused(Object.keys(read.problems).map(function (k) { return read.problems[k]; })
              .concat(checks.refusal ? [checks.refusal] : []).join(" · "));
      document.documentElement.setAttribute("data-ready", "true");
      return;
    }
    var hash = stateFragment(scenario);
    document.getElementById("share").href = hash;
    if (fromControls && location.hash !== hash) history.replaceState(null, "", hash);
    show(result);
    recommendations(result);
    launchCommands(scenario, result);
    quantMatrix(scenario);
    contextChart(scenario);
    compareChart(scenario);
    providers(scenario, result);
    finetune(scenario);
    document.documentElement.setAttribute("data-ready", "true");
  }

  /* The choices of the configurator's lists, from the data: the pages this site has,
   * every weight format the model can take, the KV precisions and engines. */
  function fillOptions() {
    var lists = {
      model: data.built.models.map(function (id) { return [id, data.page.models[id].name]; }),
      hardware: data.built.hardware.map(function (id) { return [id, data.page.hardware[id].name]; }),
      quant: Object.keys(data.page.quants).filter(function (id) {
        var fmt = data.quants[id], info = data.models[form.dataset.model];
        return fmt && fmt.size_basis !== "checkpoint" && !(fmt.requires_experts && !info.experts);
      }).map(function (id) { return [id, id]; }),
      kv: Object.keys(data.page.kv).map(function (id) { return [id, data.page.kv[id].name]; }),
      engine: Object.keys(data.page.engines).map(function (id) { return [id, data.page.engines[id].name]; })
    };
    Object.keys(lists).forEach(function (name) {
      var select = form.elements[name];
      select.textContent = "";
      lists[name].forEach(function (pair) {
        var option = document.createElement("option");
        option.value = pair[0];
        option.textContent = pair[1];
        select.appendChild(option);
      });
    });
  }

  /* A model's index page: the accelerator the report pack's purchase recommendation picks
   * for the model's preset scenario (the seed pages' model page without a chosen one),
   * linked to its page. */
  function bestAccelerator() {
    var best = document.querySelector("[data-best]");
    if (!best) return;
    var slot = data.page.purchase_recommendation;
    var result = model.evaluate(model.scenario({model: best.getAttribute("data-best")}));
    var pick = slot && result.picks[slot];
    if (!pick || !pick.hardware || data.built.hardware.indexOf(pick.hardware) < 0) return;
    var link = best.querySelector("[data-best-link]");
    link.href = encodeURIComponent(pick.hardware) + ".html";
    link.textContent = data.page.hardware[pick.hardware].name;
    best.hidden = false;
  }

  /* An index page: each row the preset scenario of its model and accelerator. */
  function fillListing() {
    bestAccelerator();
    listing.querySelectorAll("tr[data-model]").forEach(function (row) {
      var scenario = model.scenario({model: row.getAttribute("data-model"),
                                     hardware: row.getAttribute("data-hardware")});
      var result = model.evaluate(scenario, {selections: false});
      row.querySelector('[data-cell="total_gib"]').textContent = format("total_gib", result.env.total_gib);
      row.querySelector('[data-cell="decode_tps"]').textContent = format("decode_tps", result.env.decode_tps);
      var verdict = row.querySelector('[data-cell="verdict"]');
      verdict.textContent = verdictText(result.verdict);
      verdict.className = result.verdict ? "v-" + result.verdict.id : "";
    });
    document.documentElement.setAttribute("data-ready", "true");
  }
  if (!form) {
    if (listing) fillListing();
    return;
  }

  fillOptions();
  form.addEventListener("change", function (event) {
    var target = event.target;
    if (target.name === "model" || target.name === "hardware") {
      var modelId = form.elements.model.value, hardwareId = form.elements.hardware.value;
      location.href = "../" + encodeURIComponent(modelId) + "/" + encodeURIComponent(hardwareId) + ".html" + location.hash;
      return;
    }
    update(true);
  });
  form.addEventListener("submit", function (event) { event.preventDefault(); update(true); });
  window.addEventListener("hashchange", function () { update(false); });
  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target.closest("[data-quantity]") : null;
    if (target) derive(target.getAttribute("data-quantity"));
  });
  document.getElementById("simulate").addEventListener("click", simulate);
  update(false);
})();
