// Evaluates scenarios with the site's runtime, for tests/test_site_js.py:
//   node evaluate.js DATA.js FORMULAS.js RUNTIME.js < scenarios.json > results.json
// Each scenario is {model, hardware, quant, kv, engine, workload, host, inputs}; each
// result holds the shown quantities (null where unknown), the verdict id, the picks, the
// recommended picks' quantities (price, devices, memory), the scenario engine's launch
// command ({note, command}), the verdicts pack's refusal and warnings, and why a tensor
// split is refused (null when it is not).
"use strict";
const fs = require("fs");
const {data, model} = require("./load_runtime.js")(...process.argv.slice(2, 5));
const scenarios = JSON.parse(fs.readFileSync(0, "utf8"));
const results = scenarios.map((scenario) => {
  const result = model.evaluate(scenario);
  const quantities = Object.create(null);  // a quantity may be named __proto__
  for (const name of data.shown) {
    const v = result.env[name];
    quantities[name] = Number.isFinite(v) ? v : null;
  }
  const picks = {};
  for (const name of Object.keys(result.picks)) picks[name] = result.picks[name].id;
  const recommended = {};
  for (const slot of data.page.recommendations) {
    for (const key of ["price", "devices", "memory"]) {
      const v = result.env[slot[key]];
      recommended[slot[key]] = Number.isFinite(v) ? v : null;
    }
  }
  const launch = model.launch(scenario.engine, scenario, result.env);
  const checks = model.checks(scenario, result.env);
  return {quantities, verdict: result.verdict ? result.verdict.id : null, picks, recommended, launch,
          refusal: checks.refusal, warnings: checks.warnings, split: model.splitProblem(scenario)};
});
process.stdout.write(JSON.stringify(results));
