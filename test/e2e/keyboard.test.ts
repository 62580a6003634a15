// The dashboard's main flow by keyboard alone (issue 13): open a template, edit a field, download
// the zip, with nothing but page.keyboard (Tab, Shift+Tab, Enter, typing): no clicks and no
// element.focus(). Every control the flow stops on must show where the focus is. Real Chromium
// against a real `kiln serve --ui` (test/e2e/harness.ts).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { strFromU8, unzipSync } from "fflate";
import type { Page } from "playwright-core";
import { type Dashboard, skipBrowser, startDashboard } from "./harness.ts";

let dashboard: Dashboard;

interface Focused {
  testId: string | null;
  name: string | null;
  /** Whether the focused element draws a focus indicator (an outline or a ring). */
  visible: boolean;
}

/** What has the focus now, and whether it shows. */
function focused(page: Page): Promise<Focused> {
  // no named helpers inside: the test's transpiler would wrap them in a helper the page lacks
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return { testId: null, name: null, visible: false };
    const style = getComputedStyle(element);
    const outline = style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) > 0;
    // an SVG node shows its focus as a thicker border on its box
    const box = element instanceof SVGElement ? element.querySelector("rect") : null;
    const ring = box !== null && Number.parseFloat(getComputedStyle(box).strokeWidth) >= 3;
    return {
      testId: element.getAttribute("data-testid"),
      name: element.getAttribute("data-name"),
      visible: element.matches(":focus-visible") && (outline || ring || style.boxShadow !== "none"),
    };
  });
}

/**
 * Presses `key` until the focus is on an element that `wanted` accepts; fails after `limit`
 * presses. Each control passed on the way must show its focus too.
 */
async function tabTo(
  page: Page,
  wanted: (focus: Focused) => boolean,
  key: "Tab" | "Shift+Tab" = "Tab",
  limit = 80,
): Promise<Focused> {
  const passed: string[] = [];
  for (let press = 0; press < limit; press++) {
    await page.keyboard.press(key);
    const focus = await focused(page);
    if (focus.testId !== null || focus.name !== null) passed.push(focus.testId ?? "");
    if (wanted(focus)) {
      assert.ok(focus.visible, `the focus on ${focus.testId} shows`);
      return focus;
    }
  }
  throw new Error(`not reached by ${key} in ${limit} presses; passed ${passed.join(", ")}`);
}

describe("the main flow by keyboard alone", { skip: skipBrowser }, () => {
  before(async () => {
    dashboard = await startDashboard();
  });

  after(async () => {
    await dashboard?.close();
  });

  it("opens a template, edits a field and downloads the zip with the keyboard only", async () => {
    const { context, page, errors } = await dashboard.newPage();
    await page.waitForSelector('[data-testid="preset-k8s-web-app"]');

    // open the template
    await tabTo(page, (focus) => focus.testId === "preset-k8s-web-app");
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="builder"]');
    await page.waitForSelector('[data-testid="preview-content"]');

    // choose the frontend deployment and edit its image
    await tabTo(page, (focus) => focus.testId === "component-item" && focus.name === "frontend");
    await page.keyboard.press("Enter");
    await page.waitForFunction(
      () =>
        (document.querySelector('[data-testid="field-name"]') as HTMLInputElement | null)?.value ===
        "frontend",
    );
    await tabTo(page, (focus) => focus.testId === "input-image");
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("registry.example.com/shop:7.0.0");
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid="preview-content"]')
        ?.textContent?.includes("registry.example.com/shop:7.0.0"),
    );

    // back up to the top bar and download the zip
    await tabTo(page, (focus) => focus.testId === "download-zip", "Shift+Tab");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.keyboard.press("Enter"),
    ]);
    assert.equal(download.suggestedFilename(), "web-app.zip");
    const files = unzipSync(new Uint8Array(readFileSync(await download.path())));
    const deployment = Object.entries(files).find(([path]) =>
      path.endsWith("frontend-deployment.yaml"),
    );
    assert.ok(deployment, Object.keys(files).join(", "));
    assert.match(strFromU8(deployment[1]), /image: "?registry\.example\.com\/shop:7\.0\.0"?/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("adds a component in the dialog and zooms and opens the architecture by keyboard", async () => {
    const { context, page, errors } = await dashboard.newPage();
    await page.waitForSelector('[data-testid="preset-k8s-web-app"]');
    await tabTo(page, (focus) => focus.testId === "preset-k8s-web-app");
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="preview-content"]');

    // the add dialog takes the focus, keeps it inside, and Ctrl+Enter adds
    await tabTo(page, (focus) => focus.testId === "add-deploy");
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="add-dialog"]');
    const item = await tabTo(page, (focus) => focus.testId === "item-k8s/service", "Tab", 20);
    assert.equal(item.testId, "item-k8s/service", "Tab went into the dialog, not behind it");
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="new-name"]');
    await page.waitForFunction(
      () => document.activeElement?.getAttribute("data-testid") === "new-name",
    );
    assert.equal((await focused(page)).testId, "new-name", "the name field has the focus");
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("admin");
    await page.waitForFunction(
      () => !(document.querySelector('[data-testid="confirm-add"]') as HTMLButtonElement).disabled,
    );
    await page.keyboard.press("Control+Enter");
    await page.waitForSelector('[data-testid="add-dialog"]', { state: "detached" });
    await page.waitForSelector('[data-testid="component-item"][data-name="admin"]');
    // the dialog gives the focus back once it has gone (on its next frame): wait for that, with
    // the page's own time-out as the fail-safe, rather than look at the moment it detaches
    await page.waitForFunction(
      () => document.activeElement?.getAttribute("data-testid") === "add-deploy",
    );
    assert.equal((await focused(page)).testId, "add-deploy", "the focus is back where it was");

    // the architecture: zoom with the keys of the focused canvas, open a node with Enter
    await tabTo(page, (focus) => focus.testId === "tab-graph");
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="graph-node"]');
    await tabTo(page, (focus) => focus.testId === "graph-viewport");
    const before = await page.getAttribute('[data-testid="graph-canvas"]', "transform");
    await page.keyboard.press("+");
    assert.notEqual(await page.getAttribute('[data-testid="graph-canvas"]', "transform"), before);
    await tabTo(page, (focus) => focus.testId === "graph-node");
    const label = await page.evaluate(() => document.activeElement?.getAttribute("aria-label"));
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="component-form"]');
    const name = await page.inputValue('[data-testid="field-name"]');
    assert.ok(
      label === name || label?.startsWith(`${name} `) || label?.startsWith(`${name},`),
      `${label} opened ${name}`,
    );
    assert.deepEqual(errors, []);
    await context.close();
  });
});
