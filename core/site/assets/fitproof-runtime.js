/* fitproof's formulas in the browser: the runtime the generated formulas call (R) and the
 * evaluation of one scenario over the site's data (FitproofModel).
 *
 * R keeps the rules of core/formula/scalar.py, so a formula gives the float Python gives: NaN is
 * unknown and stays unknown; a division by zero is an infinity. The functions formulas
 * call (R.fn: min, max, coalesce, round…) and the operators (R.op: //, %, **, comparisons,
 * and, or, not) are not written here: a site build fills R.fn's and R.op's slots from the
 * tables in core/formula/functions.py and core/formula/operators.py
 * (core/formula/javascript.py runtime_script).
 * FitproofModel follows core/fast/estimate.py: bind the scenario's pack values, then
 * compute every name in the snapshot's order (formulas, per-family variants, selections
 * over candidate lists, quantities of a selection's pick), then the first verdict rule
 * that holds. No formula is written here: they come from formulas.js, generated from the
 * packs' parsed trees by core/formula/javascript.py.
 */
(function (root) {
  "use strict";

  var INF = Infinity;

  function truth(v) {
    if (v !== v) return NaN;
    return v !== 0 ? 1 : 0;
  }

  function finite(v) {
    return v === INF || v === -INF ? NaN : v;
  }

  // Python's float divmod (Objects/floatobject.c): the modulo takes the divisor's sign and
  // the floor quotient is corrected for the rounding of the division
  function divmod(a, b) {
    var mod = a % b;
    var div = (a - mod) / b;
    if (mod) {
      if ((b < 0) !== (mod < 0)) {
        mod += b;
        div -= 1;
      }
    } else {
      mod = b < 0 ? -0 : 0;
    }
    var floordiv;
    if (div) {
      floordiv = Math.floor(div);
      if (div - floordiv > 0.5) floordiv += 1;
    } else {
      floordiv = (a / b < 0 || Object.is(a / b, -0)) ? -0 : 0;
    }
    return [floordiv, mod];
  }

  function isOddInteger(v) {
    return isFinite(v) && Math.floor(v) === v && Math.abs(v % 2) === 1;
  }

  function roundScalar(x, digits) {
    digits = Math.trunc(digits);
    var value = x;
    var scale = Math.pow(10, digits);
    var scaled = value * scale;
    if (!isFinite(scaled)) return scaled === scaled ? scaled / scale : NaN;
    if (Math.abs(scaled) >= 9007199254740992) return value;
    if (digits >= 0 && digits <= 100 && Math.abs(value) < 1e21) {
      // the exact decimal expansion, ties away from zero
      return Number(value.toFixed(digits));
    }
    return Math.trunc(scaled + (scaled < 0 ? -0.5 : 0.5)) / scale;
  }

  function log(v) {
    if (v !== v || v < 0) return NaN;
    if (v === 0) return -INF;
    return Math.log(v);
  }

  var R = {
    truth: truth,
    finite: finite,
    divmod: divmod,
    isOddInteger: isOddInteger,
    // a chain of comparisons (a < b <= c), each operand computed once; each comparison
    // and the "and" between them are rows of the operator table (R.op)
    compare: function (ops, values) {
      var result = 1;
      for (var i = 0; i < ops.length; i++) {
        var r = R.op[ops[i]]([values[i], values[i + 1]]);
        result = i === 0 ? r : R.op["and"]([result, r]);
      }
      return result;
    },
    cond: function (test, body, orelse) {
      var t = truth(test);
      if (t !== t) return NaN;
      return t === 1 ? body : orelse;
    },
    // the functions formulas call, one per row of core/formula/functions.py, written into
    // this slot when a site is built (core/formula/javascript.py runtime_script)
    fn: /* formula functions: formula/javascript.py runtime_script */ null,
    // the operators (+, //, <=, and, not…), one per row of core/formula/operators.py,
    // written into this slot when a site is built (core/formula/javascript.py runtime_script)
    op: /* formula operators: formula/javascript.py runtime_script */ null,
    ln: log,
    roundScalar: roundScalar
  };

  function value(number) {
    return number === null || number === undefined ? NaN : Number(number);
  }

  function keyValue(key, entity) {
    var attribute = key.split(".").slice(1).join(".");
    if (!attribute) return String(entity.id);
    var keys = entity.keys || {};
    return keys[attribute] === undefined || keys[attribute] === null ? "" : String(keys[attribute]);
  }

  function keyed(entity, field, key) {
    var figures = (entity.keyed || {})[field] || {};
    if (!(key in figures) && ("default" in figures)) key = "default";
    return value(figures[key]);
  }

  function sortKey(v) {
    if (v !== v || v === INF) return INF;
    return v === -INF ? -Number.MAX_VALUE : v;
  }

  var SELECTORS = ["model", "hardware", "quant", "kv", "engine", "workload", "host"];

  function FitproofModel(data, compiled) {
    this.data = data;
    this.f = compiled;
  }

  FitproofModel.prototype.bound = function (scenario) {
    var data = this.data, bound = {};
    SELECTORS.forEach(function (key) {
      bound[key] = data.entities[data.bound[key][scenario[key]]];
    });
    return bound;
  };

  FitproofModel.prototype.row = function (scenario, bound) {
    var data = this.data, env = Object.create(null);  // every pack name an own value
    Object.keys(scenario.inputs).forEach(function (name) { env[name] = value(scenario.inputs[name]); });
    Object.keys(data.fields).forEach(function (namespace) {
      var entity = bound[namespace];
      data.fields[namespace].forEach(function (field) {
        env[namespace + "." + field] = entity ? value(entity.fields[field]) : NaN;
      });
    });
    data.keyed.forEach(function (spec) {
      var namespace = spec[0], field = spec[1], key = spec[2];
      var entity = bound[namespace];
      env[namespace + "." + field] = entity ?
        keyed(entity, field, keyValue(key, bound[key.split(".")[0]])) : NaN;
    });
    return env;
  };

  FitproofModel.prototype.candidateEnv = function (name, index, env, bound) {
    var data = this.data, selection = data.selections[name];
    var candidate = data.collections[selection.collection][index];
    var child = Object.assign(Object.create(null), env);
    selection.namespaces.forEach(function (namespace) {
      var entity = data.entities[candidate.entities[namespace]];
      selection.fields[namespace].forEach(function (field) {
        child[namespace + "." + field] = value(entity.fields[field]);
      });
    });
    selection.overridden.forEach(function (input) { child[input] = value(candidate.inputs[input]); });
    selection.keyed.forEach(function (spec) {
      var namespace = spec[0], field = spec[1], key = spec[2], keyNamespace = key.split(".")[0];
      var rowEntity = bound[namespace];
      var keyEntity = data.entities[candidate.entities[keyNamespace]];
      child[namespace + "." + field] = rowEntity ? keyed(rowEntity, field, keyValue(key, keyEntity)) : NaN;
    });
    return child;
  };

  FitproofModel.prototype.select = function (name, env, bound) {
    var data = this.data, f = this.f, self = this;
    var selection = data.selections[name];
    var candidates = data.collections[selection.collection] || [];
    var best = null, chosen = -1, qualifying = 0;
    var match = selection.match || [];
    for (var index = 0; index < candidates.length; index++) {
      if (match.length && !matches(match, data.entities, candidates[index], env, bound)) continue;
      var child = self.candidateEnv(name, index, env, bound);
      selection.recompute.forEach(function (formula) { child[formula] = finite(f.formulas[formula](child)); });
      if (f.where[name](child) !== 1) continue;
      qualifying += 1;
      var keys = f.minimize[name].map(function (key) { return sortKey(key(child)); });
      if (best === null || lexLess(keys, best)) { best = keys; chosen = index; }
    }
    selection.namespaces.slice().reverse().forEach(function (namespace) {
      selection.fields[namespace].forEach(function (field) {
        env[name + "." + field] = chosen >= 0 ?
          value(data.entities[candidates[chosen].entities[namespace]].fields[field]) : NaN;
      });
    });
    var choice = chosen >= 0 ? candidates[chosen] : null;
    var hardware = choice && choice.entities.hardware !== undefined ?
      data.entities[choice.entities.hardware].id : null;
    return {pick: {id: choice ? choice.id : null, label: choice ? choice.label : null,
                   hardware: hardware, qualifying: qualifying, candidates: candidates.length,
                   source: selection.location},
            chosen: chosen};
  };

  /* Whether a candidate shares what a selection's ``match`` names with the row: the pack
   * bound in a namespace (by id) or an input's value (core/fast/select.py's _matches). */
  function matches(match, entities, candidate, env, bound) {
    for (var i = 0; i < match.length; i++) {
      var item = match[i];
      if (candidate.entities[item] !== undefined) {
        if (entities[candidate.entities[item]].id !== bound[item].id) return false;
      } else if (value(candidate.inputs[item]) !== env[item]) {
        return false;
      }
    }
    return true;
  }

  /* Whether candidate ``index`` of selection ``name`` shares what its ``match`` names with
   * the scenario (every candidate, for a selection without one). */
  FitproofModel.prototype.matchesCandidate = function (name, index, env, bound) {
    var selection = this.data.selections[name], match = selection.match || [];
    return !match.length || matches(match, this.data.entities,
                                     this.data.collections[selection.collection][index], env, bound);
  };

  function lexLess(a, b) {
    for (var i = 0; i < a.length; i++) {
      if (a[i] < b[i]) return true;
      if (a[i] > b[i]) return false;
    }
    return false;
  }

  FitproofModel.prototype.picked = function (name, quantity, chosen, env, bound) {
    if (chosen < 0) return NaN;
    var f = this.f, child = this.candidateEnv(name, chosen, env, bound);
    this.data.selections[name].picked[quantity].forEach(function (formula) {
      child[formula] = finite(f.formulas[formula](child));
    });
    return child[quantity];
  };

  /* The scenario ({model, hardware, quant, kv, engine, workload, host, inputs}) evaluated:
   * every name's value (env), the picks of the selections (and the index of each pick in
   * its candidate list, chosen) and the verdict rule that holds (null when none is decided). */
  FitproofModel.prototype.evaluate = function (scenario, options) {
    var data = this.data, f = this.f;
    // {selections: false}: leave the picks out (their fields and quantities unknown),
    // for tables that show no figure of a pick
    var selections = !options || options.selections !== false;
    var bound = this.bound(scenario);
    var env = this.row(scenario, bound);
    var family = data.models[scenario.model].family;
    var chosen = Object.create(null), picks = Object.create(null);
    for (var i = 0; i < data.order.length; i++) {
      var name = data.order[i];
      if (f.formulas[name]) {
        env[name] = finite(f.formulas[name](env));
      } else if (f.dispatched[name]) {
        var variant = f.dispatched[name][family];
        env[name] = variant ? finite(variant(env)) : NaN;
      } else if (data.selections[name] && !selections) {
        var skipped = data.selections[name];
        skipped.namespaces.forEach(function (namespace) {
          skipped.fields[namespace].forEach(function (field) { env[name + "." + field] = NaN; });
        });
        chosen[name] = -1;
      } else if (data.selections[name]) {
        var result = this.select(name, env, bound);
        picks[name] = result.pick;
        chosen[name] = result.chosen;
      } else if (data.picked[name]) {
        var spec = data.picked[name];
        env[name] = this.picked(spec[0], spec[1], chosen[spec[0]], env, bound);
      }
    }
    var verdict = null;
    for (var v = 0; v < f.verdicts.length; v++) {
      var holds = f.verdicts[v](env);
      if (holds !== holds) break;
      if (holds === 1) { verdict = data.verdicts[v]; break; }
    }
    return {env: env, picks: picks, chosen: chosen, verdict: verdict};
  };

  /* A scenario with the preset's choices and inputs, then what ``overrides`` sets. */
  FitproofModel.prototype.scenario = function (overrides) {
    var data = this.data, preset = data.preset, scenario = {inputs: Object.create(null)};
    SELECTORS.forEach(function (key) { scenario[key] = preset.choices[key]; });
    Object.keys(data.inputs).forEach(function (name) {
      var given = preset.inputs[name];
      scenario.inputs[name] = given === undefined ? data.inputs[name]["default"] : given;
    });
    overrides = overrides || {};
    SELECTORS.forEach(function (key) { if (overrides[key]) scenario[key] = overrides[key]; });
    Object.keys(overrides.inputs || {}).forEach(function (name) { scenario.inputs[name] = overrides.inputs[name]; });
    // a default never above the model field its input names (scenario._default_cap)
    var modelEntity = data.entities[data.bound.model[scenario.model]];
    Object.keys(data.inputs).forEach(function (name) {
      var field = data.inputs[name].default_at_most, given = (overrides.inputs || {})[name];
      if (!field || given !== undefined || scenario.inputs[name] === null) return;
      var cap = modelEntity.fields[field.split(".")[1]];
      if (cap && scenario.inputs[name] > cap) scenario.inputs[name] = cap;
    });
    var fmt = data.quants[scenario.quant], model = data.models[scenario.model];
    if (fmt && fmt.size_basis === "checkpoint" && model.checkpoint_format) scenario.quant = model.checkpoint_format;
    return scenario;
  };

  /* A value as a refusal's or warning's message shows it (scenario_checks.shown_value):
   * a whole number with thousands separators, else up to two decimals. */
  function shownValue(v) {
    if (v === null || v === undefined || !isFinite(v)) return "unknown";
    if (Number.isInteger(v)) return groupThousands(String(Math.abs(v)), v < 0);
    var text = v.toFixed(2).replace(/0+$/, "").replace(/\.$/, "");
    var parts = text.replace("-", "").split(".");
    return groupThousands(parts[0], v < 0) + (parts[1] ? "." + parts[1] : "");
  }

  function groupThousands(digits, negative) {
    return (negative ? "-" : "") + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  var MESSAGE_PLACEHOLDER = /\{([a-z_][a-z0-9_]*)\}/g;
  /* A message with its plain {name} placeholders filled (message_format.fill, for the
   * messages the verdicts pack's checks use). */
  function fillMessage(text, values) {
    return text.replace(MESSAGE_PLACEHOLDER, function (match, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : match;
    }).replace(/\{\{/g, "{").replace(/\}\}/g, "}");
  }

  /* The first refusal that applies and every warning, of the verdicts pack's checks, for
   * an evaluated scenario (scenario_checks.outcome): {refusal: message or null, warnings}. */
  FitproofModel.prototype.checks = function (scenario, env) {
    var data = this.data, refusal = null, warnings = [];
    var names = {model: data.models[scenario.model].name, hardware: data.hardware[scenario.hardware].name,
                 engine: data.engines[scenario.engine].name};
    (data.checks || []).forEach(function (check) {
      var truth = env[check[1]];
      if (truth === undefined || truth !== truth || truth === 0) return;
      var values = Object.assign({}, names);
      Object.keys(check[3]).forEach(function (key) { values[key] = shownValue(env[check[3][key]]); });
      var message = fillMessage(check[2], values);
      if (check[0] === "refusals") { if (refusal === null) refusal = message; }
      else warnings.push(message);
    });
    return {refusal: refusal, warnings: warnings};
  };

  /* A number as Python's str() prints the value checked_input shows: whole numbers in full. */
  function plainInput(number) {
    return Number.isInteger(number) ? BigInt(number).toString() : String(number);
  }

  /* Why ``text``, typed for input ``name``, is refused (input_checks.checked_input's
   * message), or null: a number, a whole number where it must be, within its range. */
  FitproofModel.prototype.inputProblem = function (name, text) {
    var definition = this.data.inputs[name];
    var shown = "'" + String(text).replace(/\\/g, "\\\\").replace(/'/g, "\\'") + "'";
    var trimmed = String(text).trim();
    var number = trimmed === "" ? NaN : Number(trimmed);
    if (trimmed !== "" && !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed) &&
        !/^[+-]?(inf|infinity|nan)$/i.test(trimmed)) number = NaN;
    if (number !== number && !/^[+-]?nan$/i.test(trimmed)) return name + " must be a number (got " + shown + ")";
    if (!isFinite(number)) return name + " must be a finite number (got " + shown + ")";
    if (definition.type === "integer" && Math.floor(number) !== number) return name + " must be a whole number (got " + shown + ")";
    var unit = definition.unit === "%" ? "%" : "";
    var got = plainInput(number);
    if (definition.minimum !== null && number < definition.minimum) return name + " must be at least " + plainInput(definition.minimum) + unit + " (got " + got + ")";
    if (definition.exclusive_minimum !== null && number <= definition.exclusive_minimum) return name + " must be more than " + plainInput(definition.exclusive_minimum) + unit + " (got " + got + ")";
    if (definition.maximum !== null && number > definition.maximum) return name + " must be at most " + plainInput(definition.maximum) + unit + " (got " + got + ")";
    return null;
  };

  /* Why the devices cannot split the model's tensors, or null (input_checks.tensor_split_problem). */
  FitproofModel.prototype.splitProblem = function (scenario) {
    var data = this.data, engine = data.engines[scenario.engine], model = data.models[scenario.model];
    var gpus = scenario.inputs.gpus === undefined || scenario.inputs.gpus === null ? 1 : scenario.inputs.gpus;
    var split = scenario.inputs.split;
    var tensor = split !== null && split !== undefined && split === split ? !!split : engine.splits_tensors;
    var heads = model.heads;
    if (tensor && gpus > 1 && heads && heads % gpus) {
      var divisors = [];
      for (var n = 2; n <= Math.min(heads, 64); n++) if (heads % n === 0) divisors.push(n);
      return "a tensor-parallel split over " + gpus + " devices does not divide the " + heads +
        " attention heads of " + model.name + "; use --gpus " + divisors.slice(0, 6).join(", ") + " or --split layer";
    }
    return null;
  };

  /* Launch commands, as core/registry/launch.py fills an engine pack's template: the words from
   * the packs shell-quoted as Python's shlex.quote does, number placeholders from the
   * evaluated scenario (``env``), an option kept when its condition holds; the fallback
   * command (with its note) when a word of the command has no value. */
  var UNSAFE = /[^A-Za-z0-9_@%+=:,.\/-]/;
  function shellQuote(word) {
    if (!word) return "''";
    if (!UNSAFE.test(word)) return word;
    return "'" + word.replace(/'/g, "'\"'\"'") + "'";
  }

  /* A number as Python's str(int(v)) for whole numbers, else format(v, "g"). */
  function plainNumber(v) {
    if (v === null || v === undefined || v !== v) return "?";
    if (v === Infinity) return "inf";
    if (v === -Infinity) return "-inf";
    if (Number.isInteger(v)) return Math.abs(v) < 1e21 ? String(v) : BigInt(v).toString();
    var exponential = v.toExponential(5), exponent = Number(exponential.split("e")[1]);
    if (exponent < -4 || exponent >= 6) {
      var mantissa = exponential.split("e")[0].replace(/\.?0+$/, "");
      var digits = String(Math.abs(exponent));
      return mantissa + "e" + (exponent < 0 ? "-" : "+") + (digits.length < 2 ? "0" + digits : digits);
    }
    return v.toFixed(Math.max(0, 5 - exponent)).replace(/\.?0+$/, "");
  }

  var PLACEHOLDER = /\{([a-z_.0-9]+)\}/g;
  function fill(text, values, env) {
    return text.replace(PLACEHOLDER, function (match, name) {
      if (Object.prototype.hasOwnProperty.call(values, name)) return values[name];
      if (env && Object.prototype.hasOwnProperty.call(env, name)) return plainNumber(env[name]);
      return match;
    });
  }

  /* The model's and the format's facts a launch command reads: the page's (names,
   * repositories, online quantization) and the snapshot's (checkpoint format, size basis). */
  function launchFacts(data, scenario) {
    var page = data.page.models[scenario.model], fmt = data.page.quants[scenario.quant] || {};
    return {model: {id: scenario.model, name: page.name, hf_repo: page.hf_repo, gguf_repo: page.gguf_repo,
                    checkpoint_repos: page.checkpoint_repos,
                    checkpoint_format: data.models[scenario.model].checkpoint_format},
            fmt: {size_basis: (data.quants[scenario.quant] || {}).size_basis,
                  online_quantization: fmt.online_quantization}};
  }

  function checkpointRepo(facts, scenario) {
    var model = facts.model, fmt = facts.fmt;
    if (Object.prototype.hasOwnProperty.call(model.checkpoint_repos, scenario.quant)) {
      return [model.checkpoint_repos[scenario.quant], ""];
    }
    var stores = model.checkpoint_format || "";
    if (model.hf_repo && (scenario.quant === stores || (!stores && fmt.size_basis === "checkpoint"))) {
      return [model.hf_repo, ""];
    }
    if (model.hf_repo && fmt.online_quantization && !stores) return [model.hf_repo, fmt.online_quantization];
    return ["", ""];
  }

  /* {note, command} of engine ``engineId`` for ``scenario`` evaluated as ``env`` (null for
   * an engine without a template). */
  FitproofModel.prototype.launch = function (engineId, scenario, env) {
    var facts = this.data.launch, template = facts.engines[engineId];
    if (!template) return null;
    var conditions = this.f.launch[engineId];
    var known = launchFacts(this.data, scenario), model = known.model, repo = checkpointRepo(known, scenario);
    var kvName = Object.prototype.hasOwnProperty.call(template.kv_types, scenario.kv) ?
      template.kv_types[scenario.kv] : scenario.kv;
    var words = {"model.hf_repo": model.hf_repo || model.id, "model.gguf_repo": model.gguf_repo || "",
                 "model.id": model.id, "model.name": model.name, "quant": scenario.quant,
                 "kv_name": kvName, "checkpoint_repo": repo[0]};
    var values = {};
    Object.keys(words).forEach(function (name) { values[name] = words[name] ? shellQuote(words[name]) : ""; });
    values.quantization_flag = repo[1] ? "--quantization " + shellQuote(repo[1]) : "";
    if (template.gpu_memory_utilization !== null) {
      values["engine.gpu_memory_utilization"] = plainNumber(template.gpu_memory_utilization);
    }
    values.kv_flag = fill(template.kv_flag, values, env);
    // the site's machines are of one kind of device: no layer shares to give
    values.tensor_split = "";
    values.tensor_split_flag = "";
    var cases = template.unavailable || [], holds = this.f.unavailable[engineId] || [];
    for (var u = 0; u < cases.length; u++) {  // the engine cannot serve it: a note, no command
      if (holds[u](env) === 1) return {note: fill(cases[u].note, Object.assign({}, values, words), env), command: ""};
    }
    var options = [];
    template.options.forEach(function (part, index) {
      if (part.when && conditions[index](env) !== 1) return;
      var text = fill(part.text, values, env);
      if (text.trim()) options.push(text);
    });
    var command = template.command, note = null, strings = facts.string_fields;
    var missing = (command.match(PLACEHOLDER) || []).some(function (match) {
      var name = match.slice(1, -1);
      return strings.indexOf(name) >= 0 && !values[name];
    });
    if (template.fallback_command && missing) {
      command = template.fallback_command;
      if (template.fallback_note) note = fill(template.fallback_note, Object.assign({}, values, words), env) || null;
    }
    return {note: note, command: fill(command, values, env) +
            (options.length ? " \\\n  " + options.join(" ") : "")};
  };

  R.shownValue = shownValue;
  root.R = R;
  root.FitproofModel = FitproofModel;
  if (typeof module !== "undefined" && module.exports) module.exports = {R: R, FitproofModel: FitproofModel};
})(typeof window !== "undefined" ? window : globalThis);
