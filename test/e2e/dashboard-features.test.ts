// The dashboard's finishing features in a real browser (issue 13): the draw.io export of the
// architecture view, the view fitted to the window with zoom and pan, the preview and tabs in
// view while a long form scrolls, code in check messages, option labels on the suggestion chips,
// Ctrl+Enter in the add dialog, and the preview's error state. Real Chromium against a real
// `kiln serve --ui` (test/e2e/harness.ts).
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type Cell, parseDrawio } from "../tools/drawio.ts";
import { type Dashboard, openPreset, skipBrowser, startDashboard } from "./harness.ts";

let dashboard: Dashboard;

/** The mxCells of a draw.io file. */
function drawioCells(xml: string): Cell[] {
  return parseDrawio(xml).cells;
}

/** The scale and shift of the graph canvas, from its transform attribute. */
async function canvasTransform(page: Page): Promise<{ x: number; y: number; scale: number }> {
  const transform = (await page.getAttribute('[data-testid="graph-canvas"]', "transform")) ?? "";
  const match = /translate\(([-\d.e]+),([-\d.e]+)\) scale\(([-\d.e]+)\)/.exec(transform);
  assert.ok(match, transform);
  return { x: Number(match[1]), y: Number(match[2]), scale: Number(match[3]) };
}

async function openGraph(page: Page, preset: string): Promise<void> {
  await openPreset(page, preset);
  await page.click('[data-testid="tab-graph"]');
  await page.waitForSelector('[data-testid="graph-node"]');
}

/** Boxes of the viewport, the graph frame and every node, in page pixels. */
function boxes(page: Page) {
  // no named helpers inside: the test's transpiler would wrap them in a helper the page lacks
  return page.evaluate(() => ({
    window: { width: innerWidth, height: innerHeight },
    scrollHeight: document.documentElement.scrollHeight,
    scrollWidth: document.documentElement.scrollWidth,
    viewport: (
      document.querySelector('[data-testid="graph-viewport"]') as Element
    ).getBoundingClientRect(),
    nodes: [...document.querySelectorAll('[data-testid="graph-node"]')].map((element) =>
      element.getBoundingClientRect(),
    ),
  }));
}

describe("dashboard features in a real browser", { skip: skipBrowser }, () => {
  before(async () => {
    dashboard = await startDashboard();
  });

  after(async () => {
    await dashboard?.close();
  });

  it("exports the architecture view as a .drawio file with its lanes, nodes and edges", async () => {
    const { context, page, errors } = await dashboard.newPage();
    await openGraph(page, "bootstrap-cluster");
    const nodes = await page.locator('[data-testid="graph-node"]').count();
    const edges = await page.locator('[data-testid="graph-edge"]').count();
    const lanes = await page.locator('[data-testid="graph-lane"]').count();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.click('[data-testid="export-drawio"]'),
    ]);
    assert.equal(download.suggestedFilename(), "bootstrap-cluster.drawio");
    const xml = readFileSync(await download.path(), "utf8");
    const cells = drawioCells(xml);
    const ids = new Set(cells.map((cell) => cell.id));
    const laneCells = cells.filter((cell) => cell.style?.startsWith("swimlane;"));
    assert.deepEqual(
      laneCells.map((cell) => cell.value),
      ["Provision", "Inventory", "Configure"],
    );
    assert.equal(laneCells.length, lanes);
    const nodeCells = cells.filter((cell) => cell.vertex === "1" && !laneCells.includes(cell));
    assert.equal(nodeCells.length, nodes);
    for (const cell of nodeCells) assert.match(cell.parent ?? "", /^lane:/, cell.id);
    const edgeCells = cells.filter((cell) => cell.edge === "1");
    assert.equal(edgeCells.length, edges);
    for (const cell of edgeCells) {
      assert.ok(ids.has(cell.source ?? ""), `source of ${cell.id}`);
      assert.ok(ids.has(cell.target ?? ""), `target of ${cell.id}`);
    }
    // the servers sit in the provision lane and link to the groups of the hosts they provision
    const byLabel = (label: string) =>
      nodeCells.find((cell) => cell.value?.startsWith(`${label}\n`)) as Cell;
    assert.equal(byLabel("control-plane").parent, "lane:provision");
    assert.equal(byLabel("control_plane").parent, "lane:inventory");
    assert.ok(
      edgeCells.some(
        (cell) =>
          cell.source === byLabel("control-plane").id &&
          cell.target === byLabel("control_plane").id &&
          cell.value === "provisions 3 hosts",
      ),
    );
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("fits the architecture view in a 1440x900 window, and zooms and pans", async () => {
    const { context, page, errors } = await dashboard.newPage();
    await openGraph(page, "multi-tier-platform");
    await page.waitForFunction(
      () => document.querySelector('[data-testid="zoom-level"]')?.textContent !== "",
    );
    const fitted = await boxes(page);
    // no page scrollbar: the document is the window's size
    assert.ok(fitted.scrollHeight <= fitted.window.height, `scrollHeight ${fitted.scrollHeight}`);
    assert.ok(fitted.scrollWidth <= fitted.window.width, `scrollWidth ${fitted.scrollWidth}`);
    assert.ok(fitted.viewport.bottom <= fitted.window.height);
    // nothing cut off: every node inside the graph's viewport
    assert.equal(fitted.nodes.length, 48);
    for (const node of fitted.nodes) {
      assert.ok(node.left >= fitted.viewport.left && node.right <= fitted.viewport.right);
      assert.ok(node.top >= fitted.viewport.top && node.bottom <= fitted.viewport.bottom);
    }
    const start = await canvasTransform(page);
    assert.ok(start.scale < 1, "the big graph is shrunk to fit");

    await page.click('[data-testid="zoom-in"]');
    const zoomedIn = await canvasTransform(page);
    assert.ok(Math.abs(zoomedIn.scale / start.scale - 1.25) < 1e-6, "+ zooms in by 25%");

    // the wheel zooms at the pointer, and does not scroll the page
    const centre = {
      x: fitted.viewport.left + fitted.viewport.width / 2,
      y: fitted.viewport.top + fitted.viewport.height / 2,
    };
    await page.mouse.move(centre.x, centre.y);
    await page.mouse.wheel(0, 200);
    await page.waitForFunction(
      (scale) =>
        !document
          .querySelector('[data-testid="graph-canvas"]')
          ?.getAttribute("transform")
          ?.includes(`scale(${scale})`),
      zoomedIn.scale,
    );
    const wheeled = await canvasTransform(page);
    assert.ok(wheeled.scale < zoomedIn.scale, "wheel down zooms out");
    assert.equal(await page.evaluate(() => document.scrollingElement?.scrollTop), 0);

    // dragging the background pans
    await page.mouse.move(fitted.viewport.left + 6, fitted.viewport.top + 6);
    await page.mouse.down();
    await page.mouse.move(fitted.viewport.left + 106, fitted.viewport.top + 56, { steps: 4 });
    await page.mouse.up();
    const panned = await canvasTransform(page);
    assert.ok(Math.abs(panned.x - wheeled.x - 100) < 1, `panned x ${panned.x - wheeled.x}`);
    assert.ok(Math.abs(panned.y - wheeled.y - 50) < 1, `panned y ${panned.y - wheeled.y}`);

    // the keyboard on the focused canvas: - zooms out, an arrow pans, 0 fits again
    await page.focus('[data-testid="graph-viewport"]');
    await page.keyboard.press("-");
    assert.ok((await canvasTransform(page)).scale < panned.scale);
    const beforeArrow = await canvasTransform(page);
    await page.keyboard.press("ArrowLeft");
    assert.ok((await canvasTransform(page)).x > beforeArrow.x);
    await page.keyboard.press("0");
    assert.deepEqual(await canvasTransform(page), start);
    await page.click('[data-testid="zoom-out"]');
    await page.click('[data-testid="zoom-fit"]');
    assert.deepEqual(await canvasTransform(page), start);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("keeps the preview and the tabs in view while a long form scrolls", async () => {
    const { context, page, errors } = await dashboard.newPage();
    await openPreset(page, "multi-tier-platform");
    await page.click('[data-testid="component-item"][data-name="platform"]');
    await page.waitForSelector('[data-testid="component-form"] [data-testid="field-hosts"]');
    const form = page.locator('[data-testid="component-form"]');
    const long = await form.evaluate((element) => element.scrollHeight - element.clientHeight);
    assert.ok(long > 300, `the inventory form is longer than the window (${long} px more)`);
    // scrolled as a user would: the wheel over the form
    const box = (await form.boundingBox()) as { x: number; y: number; width: number };
    await page.mouse.move(box.x + box.width / 2, box.y + 200);
    await page.mouse.wheel(0, 2000);
    await page.waitForFunction(
      () => (document.querySelector('[data-testid="component-form"]')?.scrollTop ?? 0) > 500,
    );
    const view = await page.evaluate(() => ({
      height: innerHeight,
      preview: (
        document.querySelector('[data-testid="preview"]') as Element
      ).getBoundingClientRect(),
      content: (
        document.querySelector('[data-testid="preview-content"]') as Element
      ).getBoundingClientRect(),
      tabs: (
        document.querySelector('[data-testid="tab-checks"]') as Element
      ).getBoundingClientRect(),
    }));
    assert.ok(view.preview.top >= 0 && view.preview.bottom <= view.height, "preview in view");
    assert.ok(view.content.top >= 0 && view.content.top < view.height, "its file in view");
    assert.ok(view.tabs.top >= 0 && view.tabs.bottom <= view.height, "tabs in view");

    // in one column (a narrow window) the form keeps the larger share and the preview the rest
    await page.setViewportSize({ width: 1000, height: 760 });
    await page.waitForFunction(() => innerWidth === 1000);
    const narrow = await page.evaluate(() => ({
      scrollHeight: document.documentElement.scrollHeight,
      form: (
        document.querySelector('[data-testid="component-form"]') as Element
      ).getBoundingClientRect(),
      preview: (
        document.querySelector('[data-testid="preview"]') as Element
      ).getBoundingClientRect(),
    }));
    assert.ok(narrow.scrollHeight <= 760, `scrollHeight ${narrow.scrollHeight}`);
    assert.ok(narrow.form.height > narrow.preview.height, "the form has the larger share");
    assert.ok(narrow.preview.top < 760 - 200 && narrow.preview.bottom <= 760, "preview in view");
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("shows the backticked names of a check message as code, never as markup", async () => {
    const { context, page, errors } = await dashboard.newPage();
    const dir = dashboard.tempDir();
    const file = join(dir, "hostile.preset.json");
    writeFileSync(
      file,
      JSON.stringify({
        name: "hostile",
        project: { name: "hostile" },
        components: [
          {
            reference: "automation/playbook",
            name: "deploy",
            fields: { plays: JSON.stringify([{ name: "p", hosts: "<b>nowhere</b>" }]) },
          },
        ],
      }),
    );
    await page.setInputFiles('[data-testid="open-file"]', file);
    await page.waitForSelector('[data-testid="builder"]');
    await page.click('[data-testid="tab-checks"]');
    const finding = page.locator('[data-testid="finding"][data-rule="play-unknown-group"]');
    await finding.waitFor();
    const codes = await finding.locator('[data-testid="finding-message"] code').allTextContents();
    assert.ok(codes.includes("<b>nowhere</b>"), JSON.stringify(codes));
    assert.ok(codes.includes("p"), JSON.stringify(codes));
    assert.equal(await finding.locator("b").count(), 0, "the value is text, not markup");
    assert.doesNotMatch((await finding.textContent()) ?? "", /`/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("shows option labels on the suggestion chips, and a chip sets the value", async () => {
    const { context, page, errors } = await dashboard.newPage();
    await openPreset(page, "single-server");
    await page.click('[data-testid="component-item"][data-name="app"]');
    const chips = page.locator('[data-testid="field-os_image"] [data-testid="suggestion"]');
    await chips.first().waitFor();
    const texts = await chips.allTextContents();
    assert.ok(
      texts.some((text) => text.includes("Debian 12") && text.includes("debian-12-x64")),
      JSON.stringify(texts),
    );
    await chips.filter({ hasText: "Debian 12" }).click();
    assert.equal(await page.inputValue('[data-testid="input-os_image"]'), "debian-12-x64");
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("adds a component with Ctrl+Enter from the add dialog", async () => {
    const { context, page, errors } = await dashboard.newPage();
    await openPreset(page, "k8s-web-app");
    await page.click('[data-testid="add-deploy"]');
    await page.click('[data-testid="item-k8s/service"]');
    await page.fill('[data-testid="new-name"]', "admin");
    await page.waitForFunction(
      () => !(document.querySelector('[data-testid="confirm-add"]') as HTMLButtonElement).disabled,
    );
    await page.focus('[data-testid="new-name"]');
    await page.keyboard.press("Control+Enter");
    await page.waitForSelector('[data-testid="add-dialog"]', { state: "detached" });
    await page.waitForSelector('[data-testid="component-item"][data-name="admin"]');
    assert.equal(await page.inputValue('[data-testid="field-name"]'), "admin");
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("turns the preview's live dot to an error state while the component does not render", async () => {
    const { context, page, errors } = await dashboard.newPage();
    await openPreset(page, "k8s-web-app");
    await page.click('[data-testid="component-item"][data-name="frontend"]');
    await page.waitForSelector('[data-testid="preview-status"]:text("live")');
    await page.fill('[data-testid="input-image"]', "");
    await page.waitForSelector('[data-testid="render-error"]');
    await page.waitForSelector('[data-testid="preview-status"]:text("error")');
    assert.equal(await page.locator(".status-dot.error").count(), 1);
    await page.fill('[data-testid="input-image"]', "nginx:1.27");
    await page.waitForSelector('[data-testid="preview-status"]:text("live")');
    assert.equal(await page.locator(".status-dot.error").count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
