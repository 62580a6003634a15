// The dashboard on any screen, in real Chromium: at 360, 420, 768, 1280, 1920 and 2560 px wide, the
// home page and a project of many components (multi-tier-platform) never scroll sideways and
// cut no text - every visible label, button, select and input holds its text (scroll and client
// widths compared; a select's chosen option measured against its box; an input's value may
// scroll only when the input is as wide as its form, since a sentence can be longer than any
// screen) and stays on the screen.
// Below 760 px the top bar's actions fold into a menu and the builder's columns become panels
// chosen by tabs; inputs side by side stay level. One page, resized, for the whole file.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type Dashboard, skipBrowser, startDashboard } from "./harness.ts";

const WIDTHS = [360, 420, 768, 1280, 1920, 2560];
const NARROW = 760;

/**
 * What is wrong with the page's layout as shown: the page wider than the window, and each
 * visible label, button, select or input whose text is cut or that leaves the screen.
 */
function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) {
      problems.push(`the page scrolls sideways: ${root.scrollWidth} px in ${root.clientWidth}`);
    }
    const context = document.createElement("canvas").getContext("2d");
    for (const element of document.querySelectorAll<HTMLElement>("label, button, select, input")) {
      if (!element.checkVisibility()) continue; // not shown (display: none, a closed fold)
      if (
        element instanceof HTMLInputElement &&
        ["checkbox", "radio", "file"].includes(element.type)
      )
        continue;
      // named inline: a helper function here would need the test runner's __name in the page
      const testId = element.getAttribute("data-testid");
      const text =
        element instanceof HTMLInputElement
          ? element.value || element.placeholder
          : element instanceof HTMLSelectElement
            ? (element.selectedOptions[0]?.text ?? "")
            : (element.textContent ?? "");
      const named = `<${element.tagName.toLowerCase()}${testId ? ` ${testId}` : ""}> "${text.trim().slice(0, 50)}"`;
      const style = getComputedStyle(element);
      if (style.visibility === "hidden" || element.closest(".visually-hidden")) continue;
      const box = element.getBoundingClientRect();
      if (box.left < -0.5 || box.right > root.clientWidth + 0.5) {
        problems.push(`${named} leaves the screen (${Math.round(box.right)} px)`);
      }
      if (element instanceof HTMLSelectElement) {
        // a select's scroll width is its box: measure the chosen option's text in its font
        if (!context) continue;
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const text = context.measureText(element.selectedOptions[0]?.text ?? "").width;
        // the room inside the box: less the padding and the drop-down arrow (about 20 px)
        const room =
          element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
        if (text > room) {
          problems.push(`${named} is cut: ${Math.round(text)} px of text in ${room}`);
        }
      } else if (element.scrollWidth > element.clientWidth + 1) {
        // a sentence longer than the widest input its form can give scrolls inside it, as text
        // fields do; an input cut while it could have been wider is the layout's fault
        const holder = element.closest(".form, .modal-body, .sidebar, .home");
        const holderStyle = holder ? getComputedStyle(holder) : undefined;
        const widest =
          holder && holderStyle
            ? holder.clientWidth -
              parseFloat(holderStyle.paddingLeft) -
              parseFloat(holderStyle.paddingRight)
            : root.clientWidth;
        if (element instanceof HTMLInputElement && box.width >= 0.85 * widest) continue;
        problems.push(
          `${named} is cut: ${element.scrollWidth} px of text in ${element.clientWidth}`,
        );
      }
    }
    return problems;
  });
}

/** Inputs side by side in one row of the project settings sit at the same height. */
function unlevelPairs(page: Page): Promise<string[]> {
  return page.$$eval(".project-settings .grid-2", (rows) =>
    rows.flatMap((row) => {
      const boxes = [...row.querySelectorAll("input")].map((input) =>
        input.getBoundingClientRect(),
      );
      const [first, second] = boxes;
      if (!first || !second) return [];
      const sideBySide = second.left >= first.right;
      return sideBySide && Math.abs(first.top - second.top) > 0.5
        ? [`inputs at ${first.top} and ${second.top}`]
        : [];
    }),
  );
}

async function assertFits(page: Page, where: string): Promise<void> {
  const problems = [...(await layoutProblems(page)), ...(await unlevelPairs(page))];
  assert.deepEqual(problems, [], where);
}

describe("the dashboard on any screen", { skip: skipBrowser }, () => {
  let dashboard: Dashboard;
  let page: Page;

  before(async () => {
    dashboard = await startDashboard();
    ({ page } = await dashboard.newPage({ viewport: { width: WIDTHS[0] ?? 360, height: 800 } }));
    await page.click('[data-testid="preset-multi-tier-platform"]');
    await page.waitForSelector('[data-testid="builder"]');
    await page.waitForSelector('[data-testid="preview-content"]', { state: "attached" });
  });

  after(async () => {
    await dashboard?.close();
  });

  for (const width of WIDTHS) {
    it(`at ${width} px nothing scrolls sideways or is cut, home and builder`, async () => {
      await page.setViewportSize({ width, height: 800 });
      await page.click(".brand");
      await page.waitForSelector('[data-testid="home"]');
      await assertFits(page, `home at ${width} px`);
      await page.click('[data-testid="continue"]');
      await page.waitForSelector('[data-testid="builder"]');
      if (width > NARROW) {
        assert.equal(await page.isVisible('[data-testid="pane-tabs"]'), false);
        assert.equal(await page.isVisible('[data-testid="menu-button"]'), false);
        await assertFits(page, `builder at ${width} px`);
        return;
      }
      // one panel at a time, each fitting; the actions behind the menu
      for (const pane of ["components", "form", "preview"]) {
        await page.click(`[data-testid="pane-${pane}"]`);
        await assertFits(page, `the ${pane} panel at ${width} px`);
      }
      assert.equal(await page.isVisible('[data-testid="download-zip"]'), false);
      await page.click('[data-testid="menu-button"]');
      assert.equal(await page.isVisible('[data-testid="download-zip"]'), true);
      assert.equal(await page.isVisible('[data-testid="theme-switch"]'), true);
      await assertFits(page, `the open menu at ${width} px`);
      await page.click('[data-testid="pane-form"]');
      assert.equal(await page.isVisible('[data-testid="download-zip"]'), false, "closes outside");
    });
  }

  it("at 360 px each structured editor fits: inventory, plays, site, group vars", async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    // multi-tier-platform's components with those editors (plain fields span the form)
    for (const name of ["platform", "bootstrap", "site", "frontend"]) {
      await page.click('[data-testid="pane-components"]');
      await page.click(`[data-testid="component-item"][data-name="${name}"] >> nth=0`);
      await page.waitForSelector('[data-testid="component-form"]');
      await assertFits(page, `the form of ${name} at 360 px`);
    }
  });

  // (the architecture view is left out: laying out 48 nodes costs seconds, and its nodes are
  // drawn in an SVG that zooms to fit)
  it("at 360 px the checks view fits", async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    await page.click('[data-testid="pane-form"]');
    await page.click('[data-testid="tab-checks"]');
    await assertFits(page, "the checks view at 360 px");
    await page.click('.tabs > [role="tab"]:has-text("Edit")');
  });

  it("at 360 px the add-component dialog fits: its stages, items and form", async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    await page.click('[data-testid="pane-components"]');
    await page.click('[data-testid="add-deploy"]');
    await page.waitForSelector('[data-testid="item-k8s/deployment"]');
    await assertFits(page, "the add dialog's items at 360 px");
    await page.click('[data-testid="item-k8s/deployment"]');
    await page.waitForSelector('[data-testid="new-name"]');
    await assertFits(page, "the add dialog's form at 360 px");
    await page.keyboard.press("Escape");
  });

  it("on a narrow screen the panels are tabs, and the menu works from the keyboard", async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    await page.click('[data-testid="pane-components"]');
    assert.equal(await page.isVisible('[data-testid="component-form"]'), false);
    await page.click('[data-testid="component-item"][data-name="storefront"]');
    // choosing a component shows its form
    await page.waitForSelector('[data-testid="component-form"]');
    assert.equal(await page.isVisible(".sidebar"), false);
    assert.equal(
      await page.getAttribute('[data-testid="pane-form"]', "aria-selected"),
      "true",
      "the selected panel's tab says so",
    );
    await page.click('[data-testid="pane-preview"]');
    assert.equal(await page.isVisible('[data-testid="preview-content"]'), true);
    assert.equal(await page.isVisible('[data-testid="component-form"]'), false);

    await page.focus('[data-testid="menu-button"]');
    await page.keyboard.press("Enter");
    assert.equal(await page.getAttribute('[data-testid="menu-button"]', "aria-expanded"), "true");
    await page.keyboard.press("Tab");
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute("data-testid")),
      "show-commands",
      "Tab goes into the open menu (its first action, Commands)",
    );
    await page.keyboard.press("Escape");
    assert.equal(await page.isVisible('[data-testid="download-preset"]'), false);
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute("data-testid")),
      "menu-button",
      "Escape gives the focus back to the menu button",
    );
  });
});
