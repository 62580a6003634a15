// `--ui`: the dashboard's static files at `/`, index.html for client routes, no path escape;
// /api stays the API. Without --ui, `/` is 404 (covered by the contract tests).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { RunningServer } from "../../src/server/server.ts";
import { raw, startFixtureServer } from "./helpers.ts";

const root = mkdtempSync(join(tmpdir(), "kiln-ui-"));
const web = join(root, "web");
let service: RunningServer;

before(async () => {
  mkdirSync(join(web, "assets"), { recursive: true });
  writeFileSync(join(web, "index.html"), "<!doctype html><title>kiln</title>");
  writeFileSync(join(web, "assets", "app.js"), "console.log(1)");
  writeFileSync(join(web, "assets", "app.css"), "body{}");
  writeFileSync(join(root, "secret.txt"), "secret");
  service = await startFixtureServer({ ui: web });
});
after(() => service.close());

test("`/` and client routes that accept HTML get index.html", async () => {
  for (const path of ["/", "/presets/k8s-web-app"]) {
    const response = await raw(service.url, { path, headers: { accept: "text/html" } });
    assert.equal(response.status, 200, path);
    assert.equal(response.headers["content-type"], "text/html; charset=utf-8");
    assert.equal(response.body, "<!doctype html><title>kiln</title>");
    assert.equal(response.headers.vary, "origin");
  }
});

test("static files get their content type; unknown non-HTML requests are 404", async () => {
  const js = await raw(service.url, { path: "/assets/app.js" });
  assert.equal(js.headers["content-type"], "text/javascript; charset=utf-8");
  const css = await raw(service.url, { path: "/assets/app.css" });
  assert.equal(css.headers["content-type"], "text/css; charset=utf-8");
  const missing = await raw(service.url, { path: "/assets/nope.js" });
  assert.equal(missing.status, 404);
  assert.equal(missing.body, "");
});

test("no path escapes the folder", async () => {
  for (const target of [
    "/../secret.txt",
    "/%2e%2e/secret.txt",
    "/assets/..%2f..%2fsecret.txt",
    "/..%5csecret.txt",
  ]) {
    const response = await raw(service.url, { target });
    assert.notEqual(response.body, "secret", target);
    assert.equal(response.status, 404, target);
  }
});

test("/api paths stay the API", async () => {
  assert.equal((await raw(service.url, { path: "/api/health" })).body, "ok");
  const unknown = await raw(service.url, { path: "/api/nope", headers: { accept: "text/html" } });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body, "");
});
