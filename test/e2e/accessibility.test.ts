// The dashboard's accessibility audit (axe-core, in real Chromium; the audit itself is
// axe-audit.ts): every view, each in the light theme with every rule and in the dark theme with
// the rules that read colours, on one page per group of views; and the main views in French.
//
// French is audited in the light theme with every rule, on one page through the main views
// (home, a form with a field's error, the add dialog, the checks, the narrow menu): a language
// changes words and their lengths, not colours, so the dark theme would add nothing, and every
// dialog's structure is already audited in English. One service and one browser serve every
// test of the file (each costs about 2 s of CPU to start).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { assertAccessible, assertAccessibleIn, auditEveryForm } from "./axe-audit.ts";
import {
  type Dashboard,
  execPathPreset,
  fillLocalStorage,
  kiln,
  openPreset,
  skipBrowser,
  startDashboard,
} from "./harness.ts";

describe("accessibility audit (axe-core) in a real browser: light and dark themes, and French", {
  skip: skipBrowser,
}, () => {
  let dashboard: Dashboard;

  before(async () => {
    dashboard = await startDashboard();
  });

  after(async () => {
    await dashboard?.close();
  });

  const newPage = async () => {
    const opened = await dashboard.newPage({ colorScheme: "light" });
    await opened.page.waitForSelector('[data-testid="preset-k8s-web-app"]');
    const applied = await opened.page.evaluate(() => document.documentElement.dataset.theme);
    assert.equal(applied, "light", "the page follows the emulated colour scheme");
    return opened;
  };

  it("home: fresh, with a project to continue, with a refused file", async () => {
    const { context, page, errors } = await newPage();
    await assertAccessible(page, "home");
    await openPreset(page, "k8s-web-app");
    await page.click(".brand");
    await page.waitForSelector('[data-testid="continue"]');
    await assertAccessible(page, "home with a project to continue");
    // a file that is not a preset: the refusal shows on the home page
    await page.setInputFiles('[data-testid="open-file"]', {
      name: "not-a.preset.json",
      mimeType: "application/json",
      buffer: Buffer.from('{"fields": 1}'),
    });
    await page.waitForSelector('[data-testid="home-error"]');
    await assertAccessible(page, "home with a refused file");
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("the first-visit guide, the narrow screen's panel tabs and open menu, a lock's questions", async () => {
    const { context, page, errors } = await dashboard.newPage({ tour: true });
    await page.waitForSelector('[data-testid="tour"]');
    await assertAccessible(page, "home with the first-visit guide");
    await page.keyboard.press("Escape");
    await page.setViewportSize({ width: 360, height: 800 });
    await page.click('[data-testid="preset-k8s-web-app"]');
    await page.waitForSelector('[data-testid="pane-tabs"]');
    await page.click('[data-testid="menu-button"]');
    await assertAccessible(page, "a narrow builder with its menu open");
    await page.click('[data-testid="pane-components"]');
    await page.click(".brand");
    await page.setViewportSize({ width: 1440, height: 900 });
    // a lock whose item file the service cannot find: the dialog asking where it is
    const dir = dashboard.tempDir();
    const item = join(dir, "note.json");
    writeFileSync(
      item,
      JSON.stringify({
        name: "note",
        category: "test",
        fields: [],
        files: [{ path: "n.txt", template: "n" }],
      }),
    );
    assert.equal(kiln(["init"], dir).status, 0);
    assert.equal(kiln(["add", "./note.json", "--name", "n"], dir).status, 0);
    await page.setInputFiles('[data-testid="open-file"]', join(dir, "kiln.lock"));
    await page.waitForSelector('[data-testid="lock-items"]');
    await assertAccessible(page, "the questions of a lock with item files");
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("the editor: every kind of component form, a render error, the Commands export", async () => {
    const { context, page, errors } = await newPage();
    await openPreset(page, "multi-tier-platform");
    const forms = await auditEveryForm(page);
    assert.ok(forms >= 8, `audited ${forms} kinds of form`);
    await openPresetFromHome(page, "k8s-web-app");
    await page.click('[data-testid="component-item"][data-name="frontend"]');
    await page.fill('[data-testid="input-image"]', "");
    await page.waitForSelector('[data-testid="render-error"]');
    await page.waitForSelector('[data-testid="field-error-image"]');
    await assertAccessible(page, "editor with a render error (under the field too)");
    // the Commands export, over the same editor
    await page.click('[data-testid="show-commands"]');
    await page.waitForSelector('[data-testid="commands-dialog"]');
    await assertAccessible(page, "the Commands export");
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("the checks view, with findings", async () => {
    const { context, page, errors } = await newPage();
    await openPreset(page, "web-and-database");
    // a role removed that a playbook runs: a finding with its one-click fix
    await page.click('[data-testid="component-item"][data-name="nginx"]');
    await page.click('[data-testid="remove-component"]');
    await page.click('[data-testid="tab-checks"]');
    await page.waitForSelector('[data-testid="finding"][data-rule="role-not-vendored"]');
    await assertAccessible(page, "checks view");
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("the architecture view", async () => {
    const { context, page, errors } = await newPage();
    await openPreset(page, "multi-tier-platform");
    await page.click('[data-testid="tab-graph"]');
    await page.waitForSelector('[data-testid="graph-node"]');
    await assertAccessible(page, "architecture view");
    // focus traces a node's connections like hover does (and reaches it by keyboard)
    await page.locator('[data-testid="graph-node"].clickable').first().focus();
    await page.waitForSelector('[data-testid="graph-node"].hovered');
    await assertAccessible(page, "architecture view, a node traced");
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("the add-component dialog: picker, configuring, a conflict, from a URL", async () => {
    const { context, page, errors } = await newPage();
    await openPreset(page, "k8s-web-app");
    await page.click('[data-testid="add-deploy"]');
    await page.waitForSelector('[data-testid="add-dialog"]');
    await assertAccessible(page, "add dialog, picker");
    await page.click('[data-testid="item-k8s/service"]');
    await page.fill('[data-testid="new-name"]', "api");
    await page.waitForSelector('[data-testid="conflict"]');
    await assertAccessible(page, "add dialog, a conflict");
    await page.keyboard.press("Escape");
    await page.waitForSelector('[data-testid="add-dialog"]', { state: "detached" });
    await page.click('.add-url, [data-testid="add-other"]');
    await page.waitForSelector('[data-testid="ref-input"]');
    await page.fill('[data-testid="ref-input"]', "./no-such-item.json");
    await page.click('[data-testid="add-dialog"] button[type="submit"]');
    await page.waitForSelector('[data-testid="add-dialog"] .field-error');
    await assertAccessible(page, "add dialog, from a URL or file, refused");
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("the refused zip and the project no longer saved, both on screen", async () => {
    const { context, page, errors } = await newPage();
    await page.setInputFiles('[data-testid="open-file"]', execPathPreset(dashboard.tempDir()));
    await page.waitForSelector('[data-testid="preview-content"]');
    await fillLocalStorage(page);
    await page.click('[data-testid="download-zip"]');
    await page.waitForSelector('[data-testid="zip-refused-file"]');
    await page.click('[data-testid="project-name"]');
    await page.keyboard.type("a-name-long-enough-to-need-more-room");
    await page.waitForSelector('[data-testid="not-saved"]');
    await assertAccessible(page, "zip refused, project not saved");
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("the INI import dialog, and the toast after removing a component", async () => {
    const { context, page, errors } = await newPage();
    await openPreset(page, "single-server");
    const names = await page.$$eval('[data-testid="component-item"]', (items) =>
      items.map((item) => [
        item.getAttribute("data-name") ?? "",
        item.querySelector(".component-ref")?.textContent ?? "",
      ]),
    );
    const inventory = names.find(([, reference]) => reference === "inventory")?.[0] ?? "";
    await page.click(`[data-testid="component-item"][data-name="${inventory}"]`);
    await page.click('[data-testid="import-ini"]');
    await page.fill('[data-testid="ini-text"]', "[web]\nweb-1 cm_host=10.1.0.1 x\n");
    await page.waitForSelector(".import-summary");
    await assertAccessible(page, "INI import dialog");
    await page.keyboard.press("Escape");
    await page.click('[data-testid="remove-component"]');
    await page.waitForSelector('[data-testid="toast"]');
    await assertAccessible(page, "toast with Undo");
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("in French, light theme: home, a form with a field's error, the add dialog, the checks and the narrow menu", async () => {
    const { context, page, errors } = await dashboard.newPage({ locale: "fr-FR" });
    await page.waitForSelector('[data-testid="preset-k8s-web-app"]');
    assert.equal(await page.getAttribute("html", "lang"), "fr");
    await assertAccessibleIn(page, "light", "French home");
    await openPreset(page, "k8s-web-app");
    await page.click('[data-testid="component-item"][data-name="frontend"]');
    await page.fill('[data-testid="input-image"]', "");
    await page.waitForSelector('[data-testid="field-error-image"]');
    await assertAccessibleIn(page, "light", "French editor with a field's error");
    await page.click('[data-testid="add-deploy"]');
    await page.waitForSelector('[data-testid="add-dialog"]');
    await assertAccessibleIn(page, "light", "French add dialog");
    await page.keyboard.press("Escape");
    await page.waitForSelector('[data-testid="add-dialog"]', { state: "detached" });
    await page.click('[data-testid="tab-checks"]');
    await page.waitForSelector('[data-testid="checks-view"]');
    await assertAccessibleIn(page, "light", "French checks view");
    await page.setViewportSize({ width: 360, height: 800 });
    await page.click('[data-testid="menu-button"]');
    await page.waitForSelector('[data-testid="language-switch"]');
    await assertAccessibleIn(page, "light", "French narrow menu");
    assert.deepEqual(errors, []);
    await context.close();
  });
});

async function openPresetFromHome(page: Page, name: string): Promise<void> {
  await page.click(".brand");
  await openPreset(page, name);
}
