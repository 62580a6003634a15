// Dark mode in a real browser: the dashboard follows the system's colour scheme by default, the
// top bar's switch (system / light / dark) overrides it and is remembered across reloads, and
// the theme is on <html> before the dashboard's script has run (no flash of the wrong theme).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type Dashboard, openPreset, skipBrowser, startDashboard } from "./harness.ts";

/** Relative luminance (0 black … 1 white) of a computed `rgb(r, g, b)` colour. */
function luminance(rgb: string): number {
  const channels = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((value) => {
    const c = Number(value) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const [r = 0, g = 0, b = 0] = channels;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** What the page shows: the applied theme and how light the body's background and text are. */
async function shown(page: Page): Promise<{ theme: string | undefined; bg: number; text: number }> {
  const { theme, background, color } = await page.evaluate(() => {
    const style = getComputedStyle(document.body);
    return {
      theme: document.documentElement.dataset.theme,
      background: style.backgroundColor,
      color: style.color,
    };
  });
  return { theme, bg: luminance(background), text: luminance(color) };
}

async function assertDark(page: Page, when: string): Promise<void> {
  const now = await shown(page);
  assert.equal(now.theme, "dark", when);
  assert.ok(now.bg < 0.05, `${when}: the background is dark (luminance ${now.bg})`);
  assert.ok(now.text > 0.6, `${when}: the text is light (luminance ${now.text})`);
}

async function assertLight(page: Page, when: string): Promise<void> {
  const now = await shown(page);
  assert.equal(now.theme, "light", when);
  assert.ok(now.bg > 0.85, `${when}: the background is light (luminance ${now.bg})`);
  assert.ok(now.text < 0.05, `${when}: the text is dark (luminance ${now.text})`);
}

async function pressed(page: Page): Promise<string[]> {
  return page.$$eval('[data-testid="theme-switch"] button[aria-pressed="true"]', (buttons) =>
    buttons.map((button) => button.getAttribute("data-testid") ?? ""),
  );
}

describe("dark mode in a real browser", { skip: skipBrowser }, () => {
  let dashboard: Dashboard;

  before(async () => {
    dashboard = await startDashboard();
  });

  after(async () => {
    await dashboard?.close();
  });

  it("follows the system's colour scheme when nothing was chosen", async () => {
    const dark = await dashboard.newPage({ colorScheme: "dark" });
    await dark.page.waitForSelector('[data-testid="theme-switch"]');
    await assertDark(dark.page, "a dark system");
    assert.deepEqual(await pressed(dark.page), ["theme-system"]);
    // the builder's surfaces come from the same palette
    await openPreset(dark.page, "k8s-web-app");
    const preview = await dark.page.$eval('[data-testid="preview-content"]', (element) => [
      getComputedStyle(element).backgroundColor,
      getComputedStyle(element).color,
    ]);
    assert.ok(luminance(preview[0] ?? "") < 0.05, `dark code background: ${preview[0]}`);
    assert.ok(luminance(preview[1] ?? "") > 0.6, `light code text: ${preview[1]}`);
    assert.deepEqual(dark.errors, []);
    await dark.context.close();

    const light = await dashboard.newPage({ colorScheme: "light" });
    await light.page.waitForSelector('[data-testid="theme-switch"]');
    await assertLight(light.page, "a light system");
    await light.context.close();
  });

  it("the preview highlights a YAML file's keys, texts and numbers, in colours of each theme", async () => {
    const { context, page, errors } = await dashboard.newPage({ colorScheme: "light" });
    await openPreset(page, "k8s-web-app");
    await page.waitForSelector('[data-testid="preview-content"] .hl-keyword');
    /** The computed colour of the first token of each kind, and of the plain text. */
    const colours = () =>
      page.$eval('[data-testid="preview-content"]', (pre) => {
        // (no named function in here: the test's compiler would wrap it in a helper the page lacks)
        const [keyword, text, number] = [".hl-keyword", ".hl-string-expression", ".hl-constant"]
          .map((selector) => pre.querySelector(selector))
          .map((element) => (element ? getComputedStyle(element).color : ""));
        return {
          plain: getComputedStyle(pre).color,
          keyword: keyword ?? "",
          text: text ?? "",
          number: number ?? "",
          keywordText: pre.querySelector(".hl-keyword")?.textContent ?? "",
        };
      });
    const light = await colours();
    assert.equal(light.keywordText, "apiVersion", "the first key is a highlighted token");
    for (const kind of ["keyword", "text", "number"] as const) {
      assert.ok(light[kind] !== "" && light[kind] !== light.plain, `light ${kind}: ${light[kind]}`);
    }
    assert.equal(new Set([light.keyword, light.text, light.number]).size, 3);
    await page.click('[data-testid="theme-dark"]');
    await assertDark(page, "dark chosen");
    const dark = await colours();
    for (const kind of ["keyword", "text", "number"] as const) {
      assert.ok(dark[kind] !== "" && dark[kind] !== dark.plain, `dark ${kind}: ${dark[kind]}`);
      assert.notEqual(dark[kind], light[kind], `${kind} has its own colour in the dark theme`);
      assert.ok(luminance(dark[kind]) > luminance(light[kind]), `${kind} is lighter on dark`);
    }
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("'system' switches live when the system's scheme changes", async () => {
    const { context, page } = await dashboard.newPage({ colorScheme: "light" });
    await page.waitForSelector('[data-testid="theme-switch"]');
    await assertLight(page, "light system");
    await page.emulateMedia({ colorScheme: "dark" });
    await page.waitForFunction(() => document.documentElement.dataset.theme === "dark");
    await assertDark(page, "the system turned dark, no reload");
    await page.emulateMedia({ colorScheme: "light" });
    await page.waitForFunction(() => document.documentElement.dataset.theme === "light");
    await assertLight(page, "and back to light");
    await context.close();
  });

  it("the switch overrides the system and is remembered across reloads", async () => {
    const { context, page } = await dashboard.newPage({ colorScheme: "light" });
    await page.click('[data-testid="theme-dark"]');
    await assertDark(page, "dark chosen on a light system");
    assert.deepEqual(await pressed(page), ["theme-dark"]);
    await page.reload();
    await page.waitForSelector('[data-testid="theme-switch"]');
    await assertDark(page, "after a reload");
    assert.deepEqual(await pressed(page), ["theme-dark"]);
    // a chosen theme does not follow the system
    await page.emulateMedia({ colorScheme: "dark" });
    await page.click('[data-testid="theme-light"]');
    await assertLight(page, "light chosen on a dark system");
    await page.reload();
    await page.waitForSelector('[data-testid="theme-switch"]');
    await assertLight(page, "light, after a reload on a dark system");
    // back to following the system: forgotten, so the dark system shows again
    await page.click('[data-testid="theme-system"]');
    await assertDark(page, "system chosen on a dark system");
    await page.reload();
    await page.waitForSelector('[data-testid="theme-switch"]');
    await assertDark(page, "system, after a reload");
    assert.deepEqual(await pressed(page), ["theme-system"]);
    await context.close();
  });

  it("the theme is applied before the dashboard's script runs (no flash on reload)", async () => {
    const { context, page } = await dashboard.newPage({ colorScheme: "light" });
    await page.click('[data-testid="theme-dark"]');
    // hold the dashboard's JavaScript back: what shows then is the inline script and the CSS
    await page.route("**/assets/*.js", () => {});
    // (a module script delays DOMContentLoaded, so wait for the styled body instead)
    await page.reload({ waitUntil: "commit" });
    await page.waitForFunction(
      () => document.body && getComputedStyle(document.body).backgroundColor !== "rgba(0, 0, 0, 0)",
    );
    assert.equal(await page.$('[data-testid="theme-switch"]'), null, "the app has not rendered");
    await assertDark(page, "before the app's script");
    await context.close();
  });
});
