// What the site's runtime says of values typed into its boxes, for tests/test_site_js.py:
//   node input_problems.js DATA.js FORMULAS.js RUNTIME.js < [[input, text], ...] > [message|null, ...]
"use strict";
const fs = require("fs");
const {model} = require("./load_runtime.js")(...process.argv.slice(2, 5));
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map(([name, text]) => model.inputProblem(name, text))));
