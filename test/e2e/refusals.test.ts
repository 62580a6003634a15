// What the dashboard refuses and what it can no longer do, said on screen, in real Chromium
// against a real `kiln serve --ui`: a zip holding files other tools run as code is refused as
// `kiln setup` refuses it, naming each file; a project the browser's storage no longer takes is
// said to be unsaved, with how to keep it. Skipped only when chromium is missing and
// KILN_REQUIRE_TOOLS is not 1.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type Dashboard,
  execPathPreset,
  fillLocalStorage,
  kiln,
  openPreset,
  skipBrowser,
  startDashboard,
} from "./harness.ts";

describe("the dashboard's refusals, on screen", { skip: skipBrowser }, () => {
  let dashboard: Dashboard;

  before(async () => {
    dashboard = await startDashboard();
  });

  after(async () => {
    await dashboard?.close();
  });

  it("refuses the zip of a preset writing .envrc and .vscode/tasks.json, naming each, as setup does", async () => {
    const dir = dashboard.tempDir();
    const preset = execPathPreset(dir);
    // the CLI refuses the same preset
    const setup = kiln(["setup", preset], dashboard.tempDir());
    assert.equal(setup.status, 1);
    assert.match(setup.stderr, /^error: refusing to write `\.envrc`, `\.vscode\/tasks\.json` - /);

    const { context, page, errors } = await dashboard.newPage();
    const downloads: string[] = [];
    page.on("download", (download) => downloads.push(download.suggestedFilename()));
    await page.setInputFiles('[data-testid="open-file"]', preset);
    await page.waitForSelector('[data-testid="builder"]');
    await page.waitForSelector('[data-testid="preview-content"]');
    await page.click('[data-testid="download-zip"]');
    const notice = page.locator('[data-testid="zip-refused"]');
    await notice.waitFor();
    assert.equal(await notice.getAttribute("role"), "alert");
    assert.equal(
      await page.getByRole("alert", { name: "The zip was not downloaded" }).count(),
      1,
      "the alert is named by its heading",
    );
    assert.deepEqual(await page.locator('[data-testid="zip-refused-file"]').allTextContents(), [
      ".envrc: direnv runs it when a shell enters the folder",
      ".vscode/tasks.json: VS Code runs its tasks and loads its settings",
    ]);
    assert.match(
      (await notice.textContent()) ?? "",
      /kiln setup refuses them unless you pass --allow-exec-paths; a download cannot ask, so nothing was downloaded/,
    );
    // the button is ready again, and nothing was downloaded
    await page.waitForSelector('[data-testid="download-zip"]:not([disabled])');
    assert.deepEqual(downloads, []);
    await notice.getByRole("button", { name: "Dismiss" }).click();
    await notice.waitFor({ state: "detached" });
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("refuses the zip of a preset writing kiln's own journal, with setup's message", async () => {
    const dir = dashboard.tempDir();
    const journal = JSON.stringify({ version: 2, entries: [{ path: "/root/.bashrc" }] });
    const preset = execPathPreset(dir, [{ path: ".kiln-journal.json", template: journal }]);
    const setup = kiln(["setup", preset, "--allow-exec-paths"], dashboard.tempDir());
    assert.equal(setup.status, 1);
    assert.match(setup.stderr, /`\.kiln-journal\.json` is a file kiln keeps for itself/);

    const { context, page } = await dashboard.newPage();
    const downloads: string[] = [];
    page.on("download", (download) => downloads.push(download.suggestedFilename()));
    await page.setInputFiles('[data-testid="open-file"]', preset);
    await page.waitForSelector('[data-testid="builder"]');
    await page.click('[data-testid="download-zip"]');
    const notice = page.locator('[data-testid="zip-refused"]');
    await notice.waitFor();
    // the alert shows the message's `code` as code elements, without the backticks
    assert.match(
      (await notice.textContent()) ?? "",
      /refusing to write \.kiln-journal\.json - \.kiln-journal\.json is a file kiln keeps for itself/,
    );
    await page.waitForSelector('[data-testid="download-zip"]:not([disabled])');
    assert.deepEqual(downloads, []);
    await context.close();
  });

  it("says when the project no longer fits in the browser's storage, and when it fits again", async () => {
    const { context, page, errors } = await dashboard.newPage();
    await openPreset(page, "k8s-web-app");
    await page.click('[data-testid="component-item"][data-name="frontend"]');
    await page.waitForSelector('[data-testid="input-image"]');
    const saved = () => page.evaluate(() => localStorage.getItem("kiln.dashboard.v1") ?? "");
    assert.match(await saved(), /"frontend"/);
    assert.equal(await page.locator('[data-testid="not-saved"]').count(), 0);

    // the storage is full: the next save that grows the project fails
    const filled = await fillLocalStorage(page);
    assert.ok(filled > 0);
    const before = await saved();
    await page.fill('[data-testid="input-image"]', "registry.example.com/shop/frontend:9.9.9-big");
    const notice = page.locator('[data-testid="not-saved"]');
    await notice.waitFor();
    assert.equal(await notice.getAttribute("role"), "alert");
    const text = (await notice.textContent()) ?? "";
    assert.match(text, /This project is not saved in this browser any more/);
    assert.match(text, /larger than this browser's storage for the dashboard allows/);
    assert.match(text, /Download preset.*Download zip/);
    // the copy saved before stays as it was (what a reload brings back)
    assert.equal(await saved(), before);
    assert.doesNotMatch(before, /9\.9\.9-big/);

    // room again: the next change is saved and the notice goes
    await page.evaluate(() => {
      for (const key of Object.keys(localStorage)) {
        if (key.startsWith("filler-")) localStorage.removeItem(key);
      }
    });
    await page.fill('[data-testid="input-image"]', "registry.example.com/shop/frontend:9.9.9-big2");
    await notice.waitFor({ state: "detached" });
    assert.match(await saved(), /9\.9\.9-big2/);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
