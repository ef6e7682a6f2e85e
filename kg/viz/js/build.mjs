// Bundles entry.js into ../static/vendor.js (generated, git-ignored), prefixed by the licence text of
// every npm package that ends up in the bundle, because the bundle is inlined into each explorer file.
import * as esbuild from "esbuild";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "static", "vendor.js");

const result = await esbuild.build({
  entryPoints: [join(here, "entry.js")],
  bundle: true,
  minify: true,
  format: "iife",
  globalName: "KGVendor",
  target: "es2020",
  legalComments: "none",
  metafile: true,
  write: false,
});

const packages = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (!m || packages.has(m[1])) continue;
  const dir = join(here, "node_modules", m[1]);
  const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const licenceFile = readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
  if (!licenceFile) throw new Error(`no licence file in ${dir}; cannot inline ${m[1]}`);
  packages.set(m[1], { version: meta.version, licence: meta.license, text: readFileSync(join(dir, licenceFile), "utf8") });
}

const banner = [...packages.keys()].sort().map((name) => {
  const p = packages.get(name);
  return `${name}@${p.version} (${p.licence})\n\n${p.text.trim()}`;
}).join("\n\n----------------------------------------\n\n").replaceAll("*/", "* /");

const code = result.outputFiles[0].text;
if (/<\/script/i.test(code)) throw new Error("bundle contains '</script'; it cannot be inlined as is");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `/*! Third-party code bundled from npm by kg/viz/js/build.mjs.\n\n${banner}\n*/\n${code}`);
console.log(`wrote ${out}: ${(code.length / 1024).toFixed(0)} KiB code, packages: ${[...packages.keys()].sort().join(", ")}`);
