// The dashboard in English and French, in real Chromium: the language comes from the browser's
// preferred languages (Playwright's `locale` sets navigator.languages), the top bar's switch
// changes it at once and it is remembered across reloads, `<html lang>` follows, and a check
// finding and a field's error are worded in the language shown, from their parts.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type Dashboard, openPreset, skipBrowser, startDashboard } from "./harness.ts";

/** Sets k8s-web-app's ingress path to `api` (no leading `/`) and checks the words under it. */
async function ingressPathRefused(page: Page, words: string): Promise<void> {
  await page
    .locator('[data-testid="component-item"][data-name="frontend"]', { hasText: "ingress" })
    .click();
  await page.fill('[data-testid="input-path"]', "api");
  await page.waitForSelector('[data-testid="field-error-path"]');
  assert.equal(await page.textContent('[data-testid="field-error-path"]'), words);
}

describe("the dashboard's languages in a real browser", { skip: skipBrowser }, () => {
  let dashboard: Dashboard;

  before(async () => {
    dashboard = await startDashboard();
  });

  after(async () => {
    await dashboard?.close();
  });

  it("a browser preferring French shows the interface in French, <html lang> fr", async () => {
    const { context, page, errors } = await dashboard.newPage({ locale: "fr-FR" });
    await page.waitForSelector('[data-testid="language-switch"]');
    assert.equal(await page.getAttribute("html", "lang"), "fr");
    assert.equal(await page.title(), "tableau de bord kiln");
    assert.equal(await page.getAttribute('[data-testid="language-fr"]', "aria-pressed"), "true");
    assert.equal(
      await page.getAttribute('[data-testid="theme-dark"]', "title"),
      "Thème\u00a0: sombre",
    );
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("an English browser shows English; the switch changes the language and a reload keeps it", async () => {
    const { context, page, errors } = await dashboard.newPage();
    await page.waitForSelector('[data-testid="language-switch"]');
    assert.equal(await page.getAttribute("html", "lang"), "en");
    assert.equal(await page.getAttribute('[data-testid="theme-dark"]', "title"), "Theme: dark");
    await page.click('[data-testid="language-fr"]');
    await page.waitForFunction(() => document.documentElement.lang === "fr");
    assert.equal(
      await page.getAttribute('[data-testid="theme-dark"]', "title"),
      "Thème\u00a0: sombre",
    );
    await page.reload();
    await page.waitForSelector('[data-testid="language-switch"]');
    assert.equal(await page.getAttribute("html", "lang"), "fr");
    assert.equal(await page.getAttribute('[data-testid="language-fr"]', "aria-pressed"), "true");
    // and back: the choice of English is remembered too, over the English browser's default
    await page.click('[data-testid="language-en"]');
    await page.reload();
    await page.waitForSelector('[data-testid="language-switch"]');
    assert.equal(await page.getAttribute("html", "lang"), "en");
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("in French, three field rules (an emptied required field, a whole number, an Ingress path) are worded under their fields from their parts; the French menu fits 360 px", async () => {
    const { context, page, errors } = await dashboard.newPage({ locale: "fr-FR" });
    await page.waitForSelector('[data-testid="preset-k8s-web-app"]');
    await openPreset(page, "k8s-web-app");
    await page.click('[data-testid="component-item"][data-name="frontend"]');
    await page.fill('[data-testid="input-image"]', "");
    await page.waitForSelector('[data-testid="field-image"] [data-testid="field-error-image"]');
    assert.equal(
      await page.textContent('[data-testid="field-error-image"]'),
      "«\u00a0Image\u00a0» est obligatoire",
    );
    const summary = (await page.textContent('[data-testid="render-error"]')) ?? "";
    assert.match(summary, /Le champ est signalé dans le formulaire\./);
    // a number out of its bounds: the bounds written as French writes numbers
    await page.fill('[data-testid="input-image"]', "nginx");
    await page.fill('[data-testid="input-replicas"]', "three");
    await page.waitForSelector('[data-testid="field-error-replicas"]');
    assert.equal(
      await page.textContent('[data-testid="field-error-replicas"]'),
      "doit être un nombre entier de 0 à 2\u202f147\u202f483\u202f647, écrit en chiffres – reçu three",
    );
    // an Ingress path Kubernetes refuses: worded in French from the rule's code and params
    await page.fill('[data-testid="input-replicas"]', "2");
    await ingressPathRefused(
      page,
      "doit être un chemin absolu, commençant par / (un chemin d’Ingress de pathType Prefix ou Exact, comme /api) – reçu api",
    );
    // the longer French words fit a phone's menu: the switch is in it, nothing cut or overflowing
    await page.setViewportSize({ width: 360, height: 800 });
    await page.click('[data-testid="menu-button"]');
    await page.waitForSelector('[data-testid="topbar-menu"] [data-testid="language-switch"]');
    const fit = await page.evaluate(() => {
      const menu = document.querySelector('[data-testid="topbar-menu"]') as HTMLElement;
      const cut = [...menu.querySelectorAll("button")].filter(
        (button) => button.scrollWidth > button.clientWidth,
      );
      return {
        pageOverflows: document.documentElement.scrollWidth > window.innerWidth,
        menuRight: menu.getBoundingClientRect().right,
        cut: cut.map((button) => button.textContent),
      };
    });
    assert.deepEqual(fit.cut, []);
    assert.equal(fit.pageOverflows, false);
    assert.ok(fit.menuRight <= 360, `the menu ends at ${fit.menuRight}px`);
    assert.deepEqual(errors, []);
    await context.close();
  });

  /**
   * Removes the role a playbook of web-and-database runs and checks the role-not-vendored
   * finding's sentence and its fix button, worded from the finding's rule id and params.
   */
  async function roleFindingShows(page: Page, sentence: RegExp, fix: string): Promise<void> {
    await page.waitForSelector('[data-testid="preset-web-and-database"]');
    await openPreset(page, "web-and-database");
    await page.click('[data-testid="component-item"][data-name="nginx"]');
    await page.click('[data-testid="remove-component"]');
    await page.click('[data-testid="tab-checks"]');
    const finding = page.locator('[data-testid="finding"][data-rule="role-not-vendored"]');
    await finding.waitFor();
    const message = (await finding.locator('[data-testid="finding-message"]').textContent()) ?? "";
    assert.match(message, sentence);
    assert.equal(await finding.locator('[data-testid="fix"]').textContent(), fix);
  }

  it("in French, a check finding is worded in French from its rule id and params, its fix button too; a service refusal is led by its kind in French", async () => {
    const { context, page, errors } = await dashboard.newPage({ locale: "fr-FR" });
    await roleFindingShows(
      page,
      /^le rôle nginx est utilisé par automation\/\S+ \S+.* mais aucun composant n’écrit roles\/nginx\/ – ajoutez un rôle nommé nginx$/,
      "Ajouter automation/role nginx",
    );
    // a service's refusal: its kind in French, from the answer's code, the message in English
    await page.click('.add-url, [data-testid="add-other"]');
    await page.fill('[data-testid="ref-input"]', "./no-such-item.json");
    await page.click('[data-testid="add-dialog"] button[type="submit"]');
    const refusal = page.locator('[data-testid="add-dialog"] .field-error');
    await refusal.waitFor();
    assert.match(
      (await refusal.locator('[data-testid="refusal-lead"]').textContent()) ?? "",
      /^Le service (refuse la demande|ne trouve rien de ce nom)\.$/,
    );
    assert.match((await refusal.locator('[lang="en"]').textContent()) ?? "", /no-such-item\.json/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("in English, a check finding is worded from its rule id and params, its fix button too", async () => {
    const { context, page, errors } = await dashboard.newPage();
    await roleFindingShows(
      page,
      /^role nginx is used by automation\/\S+ \S+.* but no component writes roles\/nginx\/ - add a role named nginx$/,
      "Add role nginx",
    );
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("in English, three field rules (required, whole number, Ingress path) are worded under their fields from their parts", async () => {
    const { context, page, errors } = await dashboard.newPage();
    await page.waitForSelector('[data-testid="preset-k8s-web-app"]');
    await openPreset(page, "k8s-web-app");
    await page.click('[data-testid="component-item"][data-name="frontend"] >> nth=0');
    await page.fill('[data-testid="input-image"]', "");
    await page.waitForSelector('[data-testid="field-error-image"]');
    assert.equal(await page.textContent('[data-testid="field-error-image"]'), "Image is required");
    await page.fill('[data-testid="input-image"]', "nginx");
    await page.fill('[data-testid="input-replicas"]', "three");
    await page.waitForSelector('[data-testid="field-error-replicas"]');
    assert.equal(
      await page.textContent('[data-testid="field-error-replicas"]'),
      "must be a whole number from 0 to 2147483647, written in digits - got three",
    );
    await page.fill('[data-testid="input-replicas"]', "2");
    await ingressPathRefused(
      page,
      "must be an absolute path, starting with / (an Ingress path of pathType Prefix or Exact, such as /api) - got api",
    );
    assert.deepEqual(errors, []);
    await context.close();
  });
});
