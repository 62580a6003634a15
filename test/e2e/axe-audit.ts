// The dashboard's accessibility audit, shared by the test files that run it (one per theme, so
// the two run side by side in a suite bound by the CPU: test/e2e/accessibility.test.ts and
// accessibility-dark.test.ts): axe-core (injected from node_modules) runs in real Chromium on
// every view - home, the editor with each kind of component form, the checks, the architecture,
// every dialog, a toast - and a violation of impact `serious` or `critical` fails the test with
// its rule, targets and help.
//
// The light theme runs every rule; the dark theme runs the rules that read colours. A theme
// changes nothing but the palette (web/src/hooks/use-theme.ts sets `data-theme` on <html>, and
// only the style sheet reads it), so every other rule sees the same page in both and would
// give the same answer twice - half the audit's time, in a suite bound by the CPU.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { AxeResults, ImpactValue } from "axe-core";
import type { Page } from "playwright-core";
import {
  type Dashboard,
  execPathPreset,
  fillLocalStorage,
  kiln,
  openPreset,
  skipBrowser,
  startDashboard,
} from "./harness.ts";

const AXE_SCRIPT = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const BLOCKING: ImpactValue[] = ["serious", "critical"];
/** axe's rules whose answer depends on colours: all a second theme can change. */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

/**
 * Runs axe over the whole page as it is now (every rule, or only `rules`); the violations that
 * fail the audit, described.
 */
async function blockingViolations(page: Page, rules?: string[]): Promise<string[]> {
  const loaded = await page.evaluate(() => "axe" in window);
  if (!loaded) await page.addScriptTag({ path: AXE_SCRIPT });
  // every finite transition or animation finished, and a frame drawn after them, before colours
  // are measured (a wait for the effect, however slow the machine)
  await page.evaluate(async () => {
    const finite = document
      .getAnimations()
      .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity);
    await Promise.all(finite.map((animation) => animation.finished.catch(() => undefined)));
    await new Promise((resolve) => requestAnimationFrame(resolve));
  });
  // only the violations are asked for: axe then skips building its reports of what passed and
  // what it could not decide (its documented `resultTypes`), most of a run's time here
  const results = (await page.evaluate(
    (only) =>
      (
        window as unknown as {
          axe: { run: (context: Document, options: unknown) => Promise<unknown> };
        }
      ).axe.run(document, {
        resultTypes: ["violations"],
        ...(only === undefined ? {} : { runOnly: { type: "rule", values: only } }),
      }),
    rules,
  )) as AxeResults;
  return results.violations
    .filter((violation) => violation.impact && BLOCKING.includes(violation.impact))
    .map((violation) => {
      const targets = violation.nodes
        .map(
          (node) =>
            `    ${node.target.join(" ")}: ${node.failureSummary?.split("\n")[1]?.trim() ?? ""}`,
        )
        .join("\n");
      return `${violation.id} (${violation.impact}): ${violation.help}\n${targets}`;
    });
}

type Theme = "light" | "dark";

/** The rules a theme is audited with: all in the light one, the colours' in the dark one. */
function rulesFor(theme: Theme): string[] | undefined {
  return theme === "light" ? undefined : COLOUR_RULES;
}

export async function assertAccessible(page: Page, theme: Theme, view: string): Promise<void> {
  const violations = await blockingViolations(page, rulesFor(theme));
  assert.deepEqual(
    violations,
    [],
    `${theme} ${view}: serious or critical axe violations:\n${violations.join("\n")}`,
  );
}

/** Clicks the first component of each distinct item in the sidebar, auditing its form. */
async function auditEveryForm(page: Page, theme: Theme): Promise<number> {
  const references = await page.$$eval('[data-testid="component-item"]', (items) =>
    items.map((item) => item.querySelector(".component-ref")?.textContent ?? ""),
  );
  const seen = new Set<string>();
  for (const [index, reference] of references.entries()) {
    if (seen.has(reference)) continue;
    seen.add(reference);
    await page.locator('[data-testid="component-item"]').nth(index).click();
    await page.waitForSelector('[data-testid="component-form"]');
    await page.waitForSelector('[data-testid="preview-content"], [data-testid="render-error"]');
    // a file of a highlighted language is audited with its colours (the grammars load lazily)
    await page.waitForFunction(() => {
      const pre = document.querySelector('[data-testid="preview-content"]');
      const path = document.querySelector(".file-path-text")?.textContent ?? "";
      return (
        !pre || pre.classList.contains("highlighted") || !/\.(ya?ml|ini|cfg|tf|json)$/.test(path)
      );
    });
    await assertAccessible(page, theme, `editor, ${reference} form`);
  }
  return seen.size;
}

/** Every view audited in `theme`, with a dashboard of its own. */
export function describeThemeAudit(theme: Theme): void {
  describe(`accessibility audit (axe-core) in a real browser: ${theme} theme`, {
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
      const opened = await dashboard.newPage({ colorScheme: theme });
      await opened.page.waitForSelector('[data-testid="preset-k8s-web-app"]');
      const applied = await opened.page.evaluate(() => document.documentElement.dataset.theme);
      assert.equal(applied, theme, "the page follows the emulated colour scheme");
      return opened;
    };

    it("home: fresh, with a project to continue, with a refused file", async () => {
      const { context, page, errors } = await newPage();
      await assertAccessible(page, theme, "home");
      await openPreset(page, "k8s-web-app");
      await page.click(".brand");
      await page.waitForSelector('[data-testid="continue"]');
      await assertAccessible(page, theme, "home with a project to continue");
      // a file that is not a preset: the refusal shows on the home page
      await page.setInputFiles('[data-testid="open-file"]', {
        name: "not-a.preset.json",
        mimeType: "application/json",
        buffer: Buffer.from('{"fields": 1}'),
      });
      await page.waitForSelector('[data-testid="home-error"]');
      await assertAccessible(page, theme, "home with a refused file");
      assert.deepEqual(errors, []);
      await context.close();
    });

    it("the first-visit guide, the narrow screen's panel tabs and open menu, a lock's questions", async () => {
      const { context, page, errors } = await dashboard.newPage({
        colorScheme: theme,
        tour: true,
      });
      await page.waitForSelector('[data-testid="tour"]');
      await assertAccessible(page, theme, "home with the first-visit guide");
      await page.keyboard.press("Escape");
      await page.setViewportSize({ width: 360, height: 800 });
      await page.click('[data-testid="preset-k8s-web-app"]');
      await page.waitForSelector('[data-testid="pane-tabs"]');
      await page.click('[data-testid="menu-button"]');
      await assertAccessible(page, theme, "a narrow builder with its menu open");
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
      await assertAccessible(page, theme, "the questions of a lock with item files");
      assert.deepEqual(errors, []);
      await context.close();
    });

    it("the editor: every kind of component form, a render error, the Commands export", async () => {
      const { context, page, errors } = await newPage();
      await openPreset(page, "multi-tier-platform");
      const forms = await auditEveryForm(page, theme);
      assert.ok(forms >= 8, `audited ${forms} kinds of form`);
      await openPresetFromHome(page, "k8s-web-app");
      await page.click('[data-testid="component-item"][data-name="frontend"]');
      await page.fill('[data-testid="input-image"]', "");
      await page.waitForSelector('[data-testid="render-error"]');
      await page.waitForSelector('[data-testid="field-error-image"]');
      await assertAccessible(page, theme, "editor with a render error (under the field too)");
      // the Commands export, over the same editor
      await page.click('[data-testid="show-commands"]');
      await page.waitForSelector('[data-testid="commands-dialog"]');
      await assertAccessible(page, theme, "the Commands export");
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
      await assertAccessible(page, theme, "checks view");
      assert.deepEqual(errors, []);
      await context.close();
    });

    it("the architecture view", async () => {
      const { context, page, errors } = await newPage();
      await openPreset(page, "multi-tier-platform");
      await page.click('[data-testid="tab-graph"]');
      await page.waitForSelector('[data-testid="graph-node"]');
      await assertAccessible(page, theme, "architecture view");
      // focus traces a node's connections like hover does (and reaches it by keyboard)
      await page.locator('[data-testid="graph-node"].clickable').first().focus();
      await page.waitForSelector('[data-testid="graph-node"].hovered');
      await assertAccessible(page, theme, "architecture view, a node traced");
      assert.deepEqual(errors, []);
      await context.close();
    });

    it("the add-component dialog: picker, configuring, a conflict, from a URL", async () => {
      const { context, page, errors } = await newPage();
      await openPreset(page, "k8s-web-app");
      await page.click('[data-testid="add-deploy"]');
      await page.waitForSelector('[data-testid="add-dialog"]');
      await assertAccessible(page, theme, "add dialog, picker");
      await page.click('[data-testid="item-k8s/service"]');
      await page.fill('[data-testid="new-name"]', "api");
      await page.waitForSelector('[data-testid="conflict"]');
      await assertAccessible(page, theme, "add dialog, a conflict");
      await page.keyboard.press("Escape");
      await page.waitForSelector('[data-testid="add-dialog"]', { state: "detached" });
      await page.click('.add-url, [data-testid="add-other"]');
      await page.waitForSelector('[data-testid="ref-input"]');
      await page.fill('[data-testid="ref-input"]', "./no-such-item.json");
      await page.click('[data-testid="add-dialog"] button[type="submit"]');
      await page.waitForSelector('[data-testid="add-dialog"] .field-error');
      await assertAccessible(page, theme, "add dialog, from a URL or file, refused");
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
      await assertAccessible(page, theme, "zip refused, project not saved");
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
      await assertAccessible(page, theme, "INI import dialog");
      await page.keyboard.press("Escape");
      await page.click('[data-testid="remove-component"]');
      await page.waitForSelector('[data-testid="toast"]');
      await assertAccessible(page, theme, "toast with Undo");
      assert.deepEqual(errors, []);
      await context.close();
    });
  });
}

async function openPresetFromHome(page: Page, name: string): Promise<void> {
  await page.click(".brand");
  await openPreset(page, name);
}
