// After `vite build`: the gzipped size of the JavaScript the first page loads (the entry
// script of dist/index.html and the modules it preloads). Fails the build above the budget.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const BUDGET = 150 * 1024;
const dist = new URL("../dist/", import.meta.url).pathname;
const html = readFileSync(join(dist, "index.html"), "utf8");

// <script type="module" src="..."> and <link rel="modulepreload" href="...">
const urls = new Set();
for (const m of html.matchAll(/<script[^>]*\bsrc="([^"]+\.js)"/g)) urls.add(m[1]);
for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g)) urls.add(m[1]);
if (urls.size === 0) {
  console.error("size: dist/index.html loads no script; is the build broken?");
  process.exit(1);
}

let total = 0;
for (const url of urls) {
  const bytes = gzipSync(readFileSync(join(dist, url.replace(/^\//, "")))).length;
  total += bytes;
  console.log(`  ${url}  ${(bytes / 1024).toFixed(1)} KB gzipped`);
}
const kb = (total / 1024).toFixed(1);
if (total > BUDGET) {
  console.error(`size: first-page JavaScript is ${kb} KB gzipped, over the ${BUDGET / 1024} KB budget`);
  process.exit(1);
}
console.log(`size: first-page JavaScript ${kb} KB gzipped (budget ${BUDGET / 1024} KB)`);
