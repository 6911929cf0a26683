// Loads the site's data, formulas and runtime scripts into one sandbox the way the page's
// <script> tags do, for the Node drivers beside this file:
//   const {data, formulas, model} = require("./load_runtime.js")(DATA.js, FORMULAS.js, RUNTIME.js);
"use strict";
const fs = require("fs");
const vm = require("vm");

module.exports = function loadRuntime(dataPath, formulasPath, runtimePath) {
  const context = {};
  vm.createContext(context);
  for (const path of [dataPath, formulasPath, runtimePath]) {
    vm.runInContext(fs.readFileSync(path, "utf8"), context, {filename: path});
  }
  const data = vm.runInContext("FITPROOF_DATA", context);
  const formulas = vm.runInContext("FITPROOF_FORMULAS", context);
  return {data, formulas, model: new context.FitproofModel(data, formulas)};
};
