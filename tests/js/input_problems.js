// What the site's runtime says of values typed into its boxes, for tests/test_site_js.py:
//   node input_problems.js DATA.js FORMULAS.js RUNTIME.js < [[input, text], ...] > [message|null, ...]
"use strict";
const fs = require("fs");
const vm = require("vm");
const [dataPath, formulasPath, runtimePath] = process.argv.slice(2);
const context = {};
vm.createContext(context);
for (const path of [dataPath, formulasPath, runtimePath]) {
  vm.runInContext(fs.readFileSync(path, "utf8"), context, {filename: path});
}
const model = new context.FitproofModel(vm.runInContext("FITPROOF_DATA", context),
                                        vm.runInContext("FITPROOF_FORMULAS", context));
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map(([name, text]) => model.inputProblem(name, text))));
