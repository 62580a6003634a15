// Refreshes the dashboard's screenshots in docs/ (`npm run screenshots`): builds the dashboard,
// starts `kiln serve --ui` and headless Chromium through the e2e harness, opens the
// web-and-database template and photographs the editor in the light and the dark theme, the
// architecture view, a required field's error under the field (in English, and in French for a
// browser preferring French) and the Commands export, at 1440x900, and the editor on a phone
// (390x844: the builder's columns as panel tabs, the top bar's actions in its menu). Names given
// after `--` take only the shots whose file names contain them (`npm run screenshots --
// french`). Needs /usr/bin/chromium.
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { ROOT, startDashboard } from "../test/e2e/harness.ts";

const PRESET = "web-and-database";

interface Shot {
  file: string;
  theme: "light" | "dark";
  /** Brings the page from the opened template to what the picture shows. */
  arrange: (page: Page) => Promise<void>;
  /** The window, when not 1440x900. */
  viewport?: { width: number; height: number };
  /** The browser's language, when not en-US. */
  locale?: string;
}

/** The template's inventory in the editor: components by stage, a structured editor, a preview. */
async function inventoryEditor(page: Page): Promise<void> {
  await page.click(`[data-testid="component-item"][data-name="${PRESET}"]`);
  await page.waitForSelector('[data-testid="inventory-editor"]');
  // the first group open: its hosts show
  await page.locator('[data-testid="inventory-group"] .disclosure').first().click();
  await page.waitForSelector('[data-testid="inventory-host"]');
  // the inventory file highlighted (the grammars load on first use)
  await page.waitForSelector('[data-testid="preview-content"].highlighted');
}

/** A group vars component with its required group emptied: the message under the field. */
async function fieldError(page: Page): Promise<void> {
  await page.click('[data-testid="component-item"][data-name="web"]');
  await page.fill('[data-testid="input-group"]', "");
  await page.waitForSelector('[data-testid="field-error-group"]');
}

/** The Commands export over the editor. */
async function commands(page: Page): Promise<void> {
  await inventoryEditor(page);
  await page.click('[data-testid="show-commands"]');
  await page.waitForSelector('[data-testid="commands-dialog"]');
}

/** On a phone: the inventory's form in the workspace panel, below the panel tabs. */
async function narrowEditor(page: Page): Promise<void> {
  await page.click('[data-testid="pane-components"]');
  await page.click(`[data-testid="component-item"][data-name="${PRESET}"]`);
  await page.waitForSelector('[data-testid="inventory-editor"]');
}

async function architecture(page: Page): Promise<void> {
  await page.click('[data-testid="tab-graph"]');
  await page.waitForSelector('[data-testid="graph-node"]');
}

const SHOTS: Shot[] = [
  { file: "docs/dashboard-light.png", theme: "light", arrange: inventoryEditor },
  { file: "docs/dashboard-dark.png", theme: "dark", arrange: inventoryEditor },
  { file: "docs/dashboard-architecture.png", theme: "dark", arrange: architecture },
  {
    file: "docs/dashboard-narrow.png",
    theme: "light",
    arrange: narrowEditor,
    viewport: { width: 390, height: 844 },
  },
  { file: "docs/dashboard-field-error.png", theme: "light", arrange: fieldError },
  { file: "docs/dashboard-commands.png", theme: "light", arrange: commands },
  { file: "docs/dashboard-french.png", theme: "light", locale: "fr-FR", arrange: fieldError },
];

/** The shots asked for on the command line, or every shot. */
function chosenShots(names: readonly string[]): Shot[] {
  if (names.length === 0) return SHOTS;
  return SHOTS.filter((shot) => names.some((name) => shot.file.includes(name)));
}

function buildDashboard(): void {
  const build = spawnSync(process.execPath, ["scripts/build-web.mjs"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (build.status !== 0) throw new Error("the dashboard did not build");
}

async function main(): Promise<void> {
  buildDashboard();
  const dashboard = await startDashboard();
  try {
    for (const shot of chosenShots(process.argv.slice(2))) {
      const { context, page } = await dashboard.newPage({
        colorScheme: shot.theme,
        ...(shot.viewport ? { viewport: shot.viewport } : {}),
        ...(shot.locale ? { locale: shot.locale } : {}),
      });
      await page.click(`[data-testid="preset-${PRESET}"]`);
      await page.waitForSelector('[data-testid="builder"]');
      // attached: on a phone the preview is in a panel of its own
      await page.waitForSelector('[data-testid="preview-content"]', { state: "attached" });
      await shot.arrange(page);
      // no caret or hover left over, and the layout (elkjs, fonts) settled
      await page.mouse.move(0, 0);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.waitForTimeout(400);
      const path = join(ROOT, shot.file);
      await page.screenshot({ path, type: "png" });
      console.log(`${shot.file} (${shot.theme}, ${Math.round(statSync(path).size / 1024)} KiB)`);
      await context.close();
    }
  } finally {
    await dashboard.close();
  }
}

await main();
