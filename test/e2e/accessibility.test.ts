// The dashboard's accessibility audit in the light theme, every rule on every view (the audit
// itself is axe-audit.ts; the dark theme's is accessibility-dark.test.ts, a file of its own so
// the two run side by side), and in French.
//
// French is audited in the light theme with every rule, on one page through the main views
// (home, a form with a field's error, the add dialog, the checks, the narrow menu): a language
// changes words and their lengths, not colours, so the dark theme would add nothing, and every
// dialog's structure is already audited in English.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertAccessible, describeThemeAudit } from "./axe-audit.ts";
import { type Dashboard, openPreset, skipBrowser, startDashboard } from "./harness.ts";

describeThemeAudit("light");

describe("accessibility audit in French (light theme)", { skip: skipBrowser }, () => {
  let dashboard: Dashboard;

  before(async () => {
    dashboard = await startDashboard();
  });

  after(async () => {
    await dashboard?.close();
  });

  it("home, a form with a field's error, the add dialog, the checks and the narrow menu", async () => {
    const { context, page, errors } = await dashboard.newPage({ locale: "fr-FR" });
    await page.waitForSelector('[data-testid="preset-k8s-web-app"]');
    assert.equal(await page.getAttribute("html", "lang"), "fr");
    await assertAccessible(page, "light", "French home");
    await openPreset(page, "k8s-web-app");
    await page.click('[data-testid="component-item"][data-name="frontend"]');
    await page.fill('[data-testid="input-image"]', "");
    await page.waitForSelector('[data-testid="field-error-image"]');
    await assertAccessible(page, "light", "French editor with a field's error");
    await page.click('[data-testid="add-deploy"]');
    await page.waitForSelector('[data-testid="add-dialog"]');
    await assertAccessible(page, "light", "French add dialog");
    await page.keyboard.press("Escape");
    await page.waitForSelector('[data-testid="add-dialog"]', { state: "detached" });
    await page.click('[data-testid="tab-checks"]');
    await page.waitForSelector('[data-testid="checks-view"]');
    await assertAccessible(page, "light", "French checks view");
    await page.setViewportSize({ width: 360, height: 800 });
    await page.click('[data-testid="menu-button"]');
    await page.waitForSelector('[data-testid="language-switch"]');
    await assertAccessible(page, "light", "French narrow menu");
    assert.deepEqual(errors, []);
    await context.close();
  });
});
