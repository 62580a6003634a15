// The layers of kiln's source, as import rules that dependency-cruiser checks over the real
// import graph (test/architecture/layers.test.ts). Arrows only point down:
//
//   src/main.ts                          the program: dispatches to a front
//   src/cli/, src/server/, src/mcp/,     the fronts (the command line, the HTTP service, the MCP
//   web/src/                             server, the dashboard); no front imports another (main
//                                        composes `kiln serve` and `kiln mcp`)
//   src/sandbox/                         the render pool and its workers, used by both fronts
//   src/node/                            the core's Node half: files, URLs, the engine, locks
//   src/core/                            browser-safe and I/O-free: no `node:` module, nothing above
//
// and no import cycle anywhere. `root` is the folder the layers are in ("src" for kiln; a
// fixture's folder for the test that shows each rule catches its break).

import type { IRegularForbiddenRuleType } from "dependency-cruiser";

/** One forbidden kind of import, in dependency-cruiser's rule format. */
type LayerRule = IRegularForbiddenRuleType & { name: string };

export function layerRules(root: string, web: string): LayerRule[] {
  const at = (folder: string) => `^${root}/${folder}`;
  const above = (folders: string[]) => `^${root}/(${folders.join("|")})(/|\\.ts$)`;
  return [
    {
      name: "core-is-browser-safe",
      comment: "src/core runs in the browser too: no node: module (or Node built-in)",
      severity: "error",
      from: { path: at("core/") },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "core-imports-only-core",
      comment: "src/core imports nothing above it (node, sandbox, fronts, main)",
      severity: "error",
      from: { path: at("core/") },
      to: { path: above(["node", "sandbox", "cli", "server", "mcp", "main"]) },
    },
    {
      name: "node-below-fronts",
      comment: "the core's Node half imports only the core",
      severity: "error",
      from: { path: at("node/") },
      to: { path: above(["sandbox", "cli", "server", "mcp", "main"]) },
    },
    {
      name: "sandbox-below-fronts",
      comment: "the render pool serves both fronts and imports neither",
      severity: "error",
      from: { path: at("sandbox/") },
      to: { path: above(["cli", "server", "mcp", "main"]) },
    },
    {
      name: "cli-never-imports-server",
      comment: "the command line and the service are separate fronts (main composes serve)",
      severity: "error",
      from: { path: at("cli/") },
      to: { path: above(["server", "mcp", "main"]) },
    },
    {
      name: "server-never-imports-cli",
      comment: "the service never imports the command line",
      severity: "error",
      from: { path: at("server/") },
      to: { path: above(["cli", "mcp", "main"]) },
    },
    {
      name: "mcp-never-imports-other-fronts",
      comment:
        "the MCP server runs the commands main hands it, and imports neither the command line nor the service",
      severity: "error",
      from: { path: at("mcp/") },
      to: { path: above(["cli", "server", "main"]) },
    },
    {
      name: "web-uses-the-browser-safe-core-only",
      comment: "the dashboard runs in the browser: no node: module, nothing of src but src/core",
      severity: "error",
      from: { path: `^${web}/` },
      to: { path: above(["node", "sandbox", "cli", "server", "main"]) },
    },
    {
      name: "web-has-no-node-modules",
      comment: "the dashboard runs in the browser: no node: module (or Node built-in)",
      severity: "error",
      from: { path: `^${web}/` },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "no-cycles",
      comment: "imports never run in a circle",
      severity: "error",
      from: { path: `^(${root}|${web})/` },
      to: { circular: true },
    },
  ];
}
