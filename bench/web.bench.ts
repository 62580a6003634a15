// Dashboard bundle benchmark (`npm run bench:web`, after building it): the size of what the
// dashboard's first load fetches - index.html and the scripts and stylesheets it names, each
// gzipped as a server would send it (zlib's default level) - printed beside its goal (PASS/MISS),
// and the chunks loaded later (the highlighter when a file is first previewed, the graph layout
// when the architecture is first opened), which the goal leaves out. Not a test: the sizes change
// with every dependency update; the goal says how much the highlighted preview may add.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const WEB = new URL("../dist/web/", import.meta.url).pathname;
/** The first load on main before the highlighted preview (index.html, index.js, index.css). */
const BASELINE_BYTES = 70_881;
/** The highlighted preview may add at most 150 KB gzipped to the first load. */
const GOAL_BYTES = BASELINE_BYTES + 150 * 1024;

const gzipped = (path: string) => gzipSync(readFileSync(join(WEB, path))).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const html = readFileSync(join(WEB, "index.html"), "utf8");
// what the page names: its module script, modulepreloads and stylesheets
const named = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map(
  (match) => match[1] as string,
);
const firstLoad = ["index.html", ...named];
const total = firstLoad.reduce((sum, path) => sum + gzipped(path), 0);

for (const path of firstLoad)
  console.log(`  first load  ${path.padEnd(40)} ${kb(gzipped(path)).padStart(9)}`);
for (const file of readdirSync(join(WEB, "assets"))) {
  const path = `assets/${file}`;
  if (!named.includes(path))
    console.log(`  later       ${path.padEnd(40)} ${kb(gzipped(path)).padStart(9)}`);
}
console.log(
  `dashboard first load: ${kb(total)} gzipped (baseline ${kb(BASELINE_BYTES)}, +${kb(total - BASELINE_BYTES)}); goal at most ${kb(GOAL_BYTES)}: ${total <= GOAL_BYTES ? "PASS" : "MISS"}`,
);
