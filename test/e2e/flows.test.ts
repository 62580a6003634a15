// The dashboard's flows a new user trips over, in real Chromium: a project opened from a
// kiln.lock whose components come from item files in the project's folder (the dashboard asks
// where they are, and keeps the lock's order), a playbook's legacy fields folded below its plays,
// the architecture of multi-tier-platform drawn as one connected picture, a new component's
// default name, and the first-visit guide (shown once, keyboard accessible). One service and
// browser for the file; one project folder.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type Dashboard, kiln, openPreset, skipBrowser, startDashboard } from "./harness.ts";

/** A project with two components from a local item file around a built-in, in that order. */
function projectWithItemFiles(dir: string): void {
  mkdirSync(join(dir, "items"));
  writeFileSync(
    join(dir, "items/note.json"),
    JSON.stringify({
      name: "note",
      category: "test",
      fields: [{ name: "text", required: true }],
      files: [{ path: "notes/{{ name }}.txt", template: "{{ text }}\n" }],
    }),
  );
  for (const args of [
    ["init", "--name", "shop"],
    ["add", "./items/note.json", "--name", "zeta", "--set", "text=hello"],
    ["add", "k8s/deployment", "--name", "beta", "--image", "nginx:1.27"],
    ["add", "./items/note.json", "--name", "alpha", "--set", "text=hi"],
  ]) {
    const result = kiln(args, dir);
    assert.equal(result.status, 0, result.stderr);
  }
}

/** The connected components of the graph drawn on the page, from its nodes and edges. */
async function drawnIslands(page: Page): Promise<number> {
  const nodes = await page.$$eval('[data-testid="graph-node"]', (list) =>
    list.map((node) => node.getAttribute("data-id") ?? ""),
  );
  const edges = await page.$$eval('[data-testid="graph-edge"]', (list) =>
    list.map((edge) => [edge.getAttribute("data-source"), edge.getAttribute("data-target")]),
  );
  assert.ok(nodes.length > 1 && nodes.every((id) => id !== ""), "every node drawn with its id");
  const parent = new Map(nodes.map((id) => [id, id]));
  const root = (id: string): string => {
    const up = parent.get(id) ?? id;
    return up === id ? id : root(up);
  };
  for (const [source, target] of edges) parent.set(root(source ?? ""), root(target ?? ""));
  return new Set(nodes.map(root)).size;
}

describe("dashboard flows", { skip: skipBrowser }, () => {
  let dashboard: Dashboard;
  let page: Page;

  before(async () => {
    dashboard = await startDashboard();
    ({ page } = await dashboard.newPage());
  });

  after(async () => {
    await dashboard?.close();
  });

  it("asks where a lock's item files are instead of failing, and keeps the lock's order", async () => {
    const dir = dashboard.tempDir();
    projectWithItemFiles(dir);
    await page.setInputFiles('[data-testid="open-file"]', [
      join(dir, "kiln.lock"),
      join(dir, "kiln.toml"),
    ]);
    const dialog = await page.waitForSelector('[data-testid="lock-items"]');
    assert.match((await dialog.textContent()) ?? "", /\.\/items\/note\.json/);
    assert.equal(await page.isVisible('[data-testid="home-error"]'), false);
    // a folder without the file is refused under its field
    await page.fill('[data-testid="item-file-path"]', dashboard.tempDir());
    await page.click('[data-testid="open-with-items"]');
    await page.waitForSelector('[data-testid="lock-items"] .field-error');
    // the project's folder is enough
    await page.fill('[data-testid="item-file-path"]', dir);
    await page.click('[data-testid="open-with-items"]');
    await page.waitForSelector('[data-testid="builder"]');
    const names = await page.$$eval(
      '[data-testid="stage-other"] [data-testid="component-item"]',
      (items) => items.map((item) => item.getAttribute("data-name")),
    );
    assert.deepEqual(names, ["zeta", "alpha"], "in the order they were added, not by name");
    await page.click('[data-testid="component-item"][data-name="zeta"]');
    await page.waitForSelector('[data-testid="preview-content"]');
    assert.match((await page.textContent('[data-testid="preview-content"]')) ?? "", /hello/);
    const download = page.waitForEvent("download");
    await page.click('[data-testid="download-preset"]');
    const preset = JSON.parse(readFileSync((await (await download).path()) ?? "", "utf8")) as {
      components: { name: string; reference: string }[];
    };
    assert.deepEqual(
      preset.components.map((component) => component.name),
      ["zeta", "beta", "alpha"],
    );
    assert.equal(preset.components[0]?.reference, join(dir, "items/note.json"));
  });

  it("folds a playbook's legacy hosts and roles under Legacy, below the plays editor", async () => {
    await page.click(".brand");
    await openPreset(page, "multi-tier-platform");
    await page.click('[data-testid="component-item"][data-name="edge"] >> nth=1');
    const legacy = await page.waitForSelector('[data-testid="legacy-fields"]');
    assert.equal(await legacy.evaluate((element) => (element as HTMLDetailsElement).open), false);
    const order = await page.$eval('[data-testid="component-form"]', (form) => {
      const plays = form.querySelector('[data-testid="plays-editor"]');
      const folded = form.querySelector('[data-testid="legacy-fields"]');
      return plays && folded ? plays.compareDocumentPosition(folded) : 0;
    });
    assert.ok(order & 4, "the Legacy fold comes after the plays editor");
    const visibleLabels = await page.$$eval(
      '[data-testid="component-form"] .field-label',
      (labels) =>
        labels.filter((label) => label.checkVisibility()).map((label) => label.textContent?.trim()),
    );
    assert.ok(
      !visibleLabels.includes("hosts") && !visibleLabels.includes("roles"),
      `${visibleLabels}`,
    );
  });

  it("draws multi-tier-platform's architecture as one connected picture", async () => {
    await page.click('[data-testid="tab-graph"]');
    await page.waitForSelector('[data-testid="graph-node"]');
    assert.equal(await drawnIslands(page), 1);
  });

  it("names a new deployment web, never after its kind", async () => {
    await page.click('[data-testid="add-deploy"]');
    await page.click('[data-testid="item-k8s/deployment"]');
    assert.equal(await page.inputValue('[data-testid="new-name"]'), "web");
    await page.keyboard.press("Escape");
  });

  it("shows the first-visit guide once: focused, stepped through, closed by Escape", async () => {
    const first = await dashboard.newPage({ tour: true });
    const tour = await first.page.waitForSelector('[data-testid="tour"]');
    assert.equal(await tour.getAttribute("role"), "dialog");
    assert.equal(
      await first.page.evaluate(() => document.activeElement?.id),
      "tour-title",
      "the focus moves into the guide",
    );
    const titles = [await first.page.textContent("#tour-title")];
    for (let step = 0; step < 3; step += 1) {
      await first.page.click('[data-testid="tour-next"]');
      titles.push(await first.page.textContent("#tour-title"));
    }
    assert.deepEqual(titles, ["Choose a template", "Edit a field", "See the checks", "Download"]);
    // the page behind stays usable: a template opens with the guide on screen
    await openPreset(first.page, "k8s-web-app");
    await first.page.focus("#tour-title");
    await first.page.keyboard.press("Escape");
    await first.page.waitForSelector('[data-testid="tour"]', { state: "detached" });
    await first.page.reload();
    await first.page.waitForSelector('[data-testid="builder"]');
    assert.equal(await first.page.isVisible('[data-testid="tour"]'), false, "shown once");
    await first.context.close();
    // a returning user (every other test's page) never sees it
    assert.equal(await page.isVisible('[data-testid="tour"]'), false);
  });
});
