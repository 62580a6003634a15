// The dashboard's accessibility audit (test/e2e/accessibility.test.ts runs it): axe-core
// (injected from node_modules) runs in real Chromium on every view - home, the editor with each
// kind of component form, the checks, the architecture, every dialog, a toast - and a violation
// of impact `serious` or `critical` fails the test with its rule, targets and help.
//
// Each view is audited in both themes on the same page: in the light theme with every rule, then
// switched to the dark theme (the emulated colour scheme, which the dashboard follows without a
// reload) with the rules that read colours, then back. A theme changes nothing but the palette
// (web/src/hooks/use-theme.ts sets `data-theme` on <html>, and only the style sheet reads it), so
// every other rule would give the same answer twice; and reaching each view once for both themes
// halves the pages, clicks and renders of an audit that once loaded every view per theme (a
// file per theme: 38 s of CPU, in a suite bound by the CPU).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import type { AxeResults, ImpactValue } from "axe-core";
import type { Page } from "playwright-core";

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

export type Theme = "light" | "dark";

/** The rules a theme is audited with: all in the light one, the colours' in the dark one. */
function rulesFor(theme: Theme): string[] | undefined {
  return theme === "light" ? undefined : COLOUR_RULES;
}

/** The page as it is now, audited in the theme it shows (`theme`, its rules). */
export async function assertAccessibleIn(page: Page, theme: Theme, view: string): Promise<void> {
  const violations = await blockingViolations(page, rulesFor(theme));
  assert.deepEqual(
    violations,
    [],
    `${theme} ${view}: serious or critical axe violations:\n${violations.join("\n")}`,
  );
}

/** Switches the emulated colour scheme and waits until the dashboard shows that theme. */
export async function showTheme(page: Page, theme: Theme): Promise<void> {
  await page.emulateMedia({ colorScheme: theme });
  await page.waitForFunction((wanted) => document.documentElement.dataset.theme === wanted, theme);
}

/**
 * The page as it is now, audited in the light theme with every rule and in the dark theme with
 * the colours' rules; the page is left in the light theme.
 */
export async function assertAccessible(page: Page, view: string): Promise<void> {
  await assertAccessibleIn(page, "light", view);
  await showTheme(page, "dark");
  await assertAccessibleIn(page, "dark", view);
  await showTheme(page, "light");
}

/** Clicks the first component of each distinct item in the sidebar, auditing its form. */
export async function auditEveryForm(page: Page): Promise<number> {
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
    await assertAccessible(page, `editor, ${reference} form`);
  }
  return seen.size;
}
