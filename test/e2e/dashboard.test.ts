// The dashboard end to end: real headless Chromium (Debian's, driven by playwright-core) against
// a real `kiln serve --ui` serving the built dist/web. Skipped only when chromium is missing and
// KILN_REQUIRE_TOOLS is not 1 (CI sets it and installs chromium).
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { unzipSync } from "fflate";
import type { Page } from "playwright-core";
import { builtinPresets } from "../../src/node/builtin-presets.ts";
import {
  type Dashboard,
  kilnSetup as kilnSetupInto,
  openPreset,
  skipBrowser,
  startDashboard,
} from "./harness.ts";

const PRESETS = builtinPresets().map((preset) => preset.name);

let dashboard: Dashboard;
const newPage = () => dashboard.newPage();
const tempDir = () => dashboard.tempDir();

function kilnSetup(preset: string): Map<string, Buffer> {
  return kilnSetupInto(preset, tempDir());
}

describe("dashboard in a real browser", { skip: skipBrowser }, () => {
  before(async () => {
    dashboard = await startDashboard();
  });

  after(async () => {
    await dashboard?.close();
  });

  it("serves the dashboard at / and the API beside it", async () => {
    const page = await fetch(`${dashboard.base}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<div id="app">/);
    const health = await fetch(`${dashboard.base}/api/health`);
    assert.equal(await health.text(), "ok");
  });

  it("opens a preset template, edits a field and the preview follows", async () => {
    const { context, page, errors } = await newPage();
    await page.waitForSelector('[data-testid="preset-k8s-web-app"]');
    await openPreset(page, "k8s-web-app");
    await page.click('[data-testid="component-item"][data-name="frontend"]');
    await page.waitForSelector('[data-testid="input-image"]');
    const before = await page.textContent('[data-testid="preview-content"]');
    assert.match(before ?? "", /kind: Deployment/);
    await page.fill('[data-testid="input-image"]', "registry.example.com/shop:9.9.9");
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid="preview-content"]')
        ?.textContent?.includes("registry.example.com/shop:9.9.9"),
    );
    // A required field emptied: the error shows under the field, in the form's words, and the
    // preview keeps a short summary - no CLI flag, no preset JSON
    await page.fill('[data-testid="input-image"]', "");
    await page.waitForSelector('[data-testid="field-error-image"]');
    assert.equal(await page.textContent('[data-testid="field-error-image"]'), "Image is required");
    assert.equal(await page.getAttribute('[data-testid="input-image"]', "aria-invalid"), "true");
    assert.equal(
      await page.getAttribute('[data-testid="input-image"]', "aria-describedby"),
      "error-image",
    );
    // the message is inside the image field's block, under its input
    assert.ok(await page.$('[data-testid="field-image"] [data-testid="field-error-image"]'));
    const summary = (await page.textContent('[data-testid="render-error"]')) ?? "";
    assert.match(summary, /Image is required\. The field is marked in the form\./);
    assert.doesNotMatch(summary, /--image|"fields"/);
    assert.equal(await page.$('[data-testid="render-error"] [data-testid="error-detail"]'), null);
    // a value that does not fit its declared format: what the field takes and what it got
    await page.fill('[data-testid="input-image"]', "nginx");
    await page.fill('[data-testid="input-replicas"]', "three");
    await page.waitForSelector('[data-testid="field-error-replicas"]');
    assert.equal(
      await page.textContent('[data-testid="field-error-replicas"]'),
      "must be a whole number from 0 to 2147483647, written in digits - got three",
    );
    assert.equal(await page.$('[data-testid="field-error-image"]'), null, "image is fixed");
    assert.match(
      (await page.textContent('[data-testid="render-error-summary"]')) ?? "",
      /^Replicas: must be a whole number from 0 to 2147483647, written in digits - got three/,
    );
    // fixed: the message goes and the files come back
    await page.fill('[data-testid="input-replicas"]', "3");
    await page.waitForSelector('[data-testid="field-error-replicas"]', { state: "detached" });
    await page.waitForSelector('[data-testid="preview-content"]');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("catches a conflict before the component is added, side by side", async () => {
    const { context, page } = await newPage();
    await openPreset(page, "k8s-web-app");
    await page.click('[data-testid="add-deploy"]');
    await page.click('[data-testid="item-k8s/service"]');
    await page.fill('[data-testid="new-name"]', "api");
    await page.waitForSelector('[data-testid="conflict"]');
    assert.match((await page.textContent('[data-testid="conflict"]')) ?? "", /api-service\.yaml/);
    assert.equal(await page.isDisabled('[data-testid="confirm-add"]'), true);
    await page.fill('[data-testid="new-name"]', "admin");
    await page.waitForSelector('[data-testid="conflict"]', { state: "detached" });
    await page.waitForFunction(
      () => !(document.querySelector('[data-testid="confirm-add"]') as HTMLButtonElement).disabled,
    );
    await page.click('[data-testid="confirm-add"]');
    await page.waitForSelector('[data-testid="component-item"][data-name="admin"]');
    await context.close();
  });

  for (const preset of PRESETS) {
    it(`downloads ${preset} as a zip byte-identical to kiln setup ${preset}`, async () => {
      const { context, page } = await newPage();
      await openPreset(page, preset);
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.click('[data-testid="download-zip"]'),
      ]);
      const path = await download.path();
      const entries = unzipSync(new Uint8Array(readFileSync(path)));
      const fromZip = new Map(
        Object.entries(entries)
          .filter(([name]) => !name.endsWith("/"))
          .map(([name, bytes]) => [name, Buffer.from(bytes)]),
      );
      const fromSetup = kilnSetup(preset);
      assert.ok(fromZip.has("kiln.lock"), "the zip holds kiln.lock, as setup writes it");
      assert.deepEqual([...fromZip.keys()].sort(), [...fromSetup.keys()].sort());
      for (const [name, bytes] of fromSetup) {
        assert.ok(bytes.equals(fromZip.get(name) as Buffer), `${name} differs from kiln setup`);
      }
      await context.close();
    });
  }

  /** The files of the zip the page downloads when "Download zip" is clicked, path → bytes. */
  async function downloadZip(page: Page): Promise<Map<string, Buffer>> {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.click('[data-testid="download-zip"]'),
    ]);
    const entries = unzipSync(new Uint8Array(readFileSync(await download.path())));
    return new Map(
      Object.entries(entries)
        .filter(([name]) => !name.endsWith("/"))
        .map(([name, bytes]) => [name, Buffer.from(bytes)]),
    );
  }

  it("opens a project from its kiln.lock (with kiln.toml: the same project; alone: its settings learnt)", async () => {
    // a project set up by the CLI
    const dir = tempDir();
    const fromSetup = kilnSetupInto("single-server", dir);
    const { context, page, errors } = await newPage();
    // kiln.lock and kiln.toml together: the zip is the project itself, every byte
    await page.setInputFiles('[data-testid="open-file"]', [
      join(dir, "kiln.lock"),
      join(dir, "kiln.toml"),
    ]);
    await page.waitForSelector('[data-testid="builder"]');
    await page.waitForSelector('[data-testid="preview-content"]');
    const withSettings = await downloadZip(page);
    assert.deepEqual([...withSettings.keys()].sort(), [...fromSetup.keys()].sort());
    for (const [name, bytes] of fromSetup) {
      assert.ok(bytes.equals(withSettings.get(name) as Buffer), `${name} differs from the project`);
    }
    // kiln.lock alone: the output folder (infra) learnt by rendering, the namespace from the
    // components; the project is unnamed, so only kiln.toml's name differs
    await page.click('button.brand[title="Home"]');
    await page.setInputFiles('[data-testid="open-file"]', join(dir, "kiln.lock"));
    await page.waitForSelector('[data-testid="builder"]');
    await page.waitForSelector('[data-testid="preview-content"]');
    const lockAlone = await downloadZip(page);
    assert.deepEqual([...lockAlone.keys()].sort(), [...fromSetup.keys()].sort());
    for (const [name, bytes] of fromSetup) {
      if (name === "kiln.toml") continue;
      assert.ok(bytes.equals(lockAlone.get(name) as Buffer), `${name} differs from the project`);
    }
    assert.match(String(lockAlone.get("kiln.toml")), /^output_dir = "infra"$/m);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("the automation names setting: ansible_host and ansible.cfg, a zip byte-identical to kiln setup of its preset", async () => {
    const { context, page } = await newPage();
    await openPreset(page, "single-server");
    await page.selectOption('[data-testid="automation-profile"]', "ansible");
    const [presetDownload] = await Promise.all([
      page.waitForEvent("download"),
      page.click('[data-testid="download-preset"]'),
    ]);
    const presetText = readFileSync(await presetDownload.path(), "utf8");
    assert.equal(JSON.parse(presetText).project.automationProfile, "ansible");
    const [zipDownload] = await Promise.all([
      page.waitForEvent("download"),
      page.click('[data-testid="download-zip"]'),
    ]);
    const entries = unzipSync(new Uint8Array(readFileSync(await zipDownload.path())));
    const fromZip = new Map(
      Object.entries(entries)
        .filter(([name]) => !name.endsWith("/"))
        .map(([name, bytes]) => [name, Buffer.from(bytes)]),
    );
    assert.ok(fromZip.has("infra/ansible.cfg"), [...fromZip.keys()].join(", "));
    assert.ok(!fromZip.has("infra/cm.cfg"));
    assert.match(String(fromZip.get("kiln.toml")), /^automation_profile = "ansible"$/m);
    const inventory = [...fromZip].find(([name]) => name.endsWith("-inventory.ini"));
    assert.match(String(inventory?.[1]), /ansible_host=/);
    const presetFile = join(tempDir(), "exported.preset.json");
    writeFileSync(presetFile, presetText);
    const fromSetup = kilnSetup(presetFile);
    assert.ok(fromZip.has("kiln.lock"), "the zip holds kiln.lock, as setup writes it");
    assert.deepEqual([...fromZip.keys()].sort(), [...fromSetup.keys()].sort());
    for (const [name, bytes] of fromSetup) {
      assert.ok(bytes.equals(fromZip.get(name) as Buffer), `${name} differs from kiln setup`);
    }
    await context.close();
  });

  it("downloads the preset as <project name>.preset.json that round-trips", async () => {
    const { context, page } = await newPage();
    await openPreset(page, "single-server");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.click('[data-testid="download-preset"]'),
    ]);
    const original = (await (
      await fetch(`${dashboard.base}/api/presets/single-server`)
    ).json()) as {
      project: { name: string };
      components: unknown[];
    };
    assert.equal(download.suggestedFilename(), `${original.project.name}.preset.json`);
    const saved = JSON.parse(readFileSync(await download.path(), "utf8")) as typeof original;
    assert.deepEqual(saved.components, original.components);
    await context.close();
  });

  it("the Commands export shows the init and add lines, copied with one click, as is each preview file", async () => {
    const { context, page, errors } = await newPage();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: dashboard.base,
    });
    await openPreset(page, "single-server");
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
    // a preview file's copy button copies that file's text
    await page.waitForSelector('[data-testid="preview-content"]');
    await page.click('[data-testid="copy-file"]');
    await page.waitForSelector('[data-testid="copy-file"]:has-text("Copied")');
    const shownFile = await page.$eval('[data-testid="preview-content"]', (pre) =>
      [...pre.querySelectorAll(".lc")].map((line) => line.textContent ?? "").join("\n"),
    );
    assert.equal((await clipboard()).replace(/\n$/, ""), shownFile.replaceAll("\u00a0", " "));
    await page.click('[data-testid="show-commands"]');
    await page.waitForSelector('[data-testid="commands-dialog"]');
    const commands = (await page.textContent('[data-testid="commands-text"]')) ?? "";
    assert.match(commands, /^kiln init --name single-server --dir \S+ --namespace \S+\nkiln add /);
    const preset = (await (await fetch(`${dashboard.base}/api/presets/single-server`)).json()) as {
      components: unknown[];
    };
    assert.equal(commands.match(/^kiln add /gm)?.length, preset.components.length);
    await page.click('[data-testid="copy-commands-text"]');
    await page.waitForSelector('[data-testid="copy-commands-text"]:has-text("Copied")');
    assert.equal(await clipboard(), commands);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("every tab says whether it is the selected one (aria-selected), in each tab list", async () => {
    const { context, page } = await newPage();
    await openPreset(page, "web-and-database");
    /** Each tab list's tabs as [text, aria-selected]. */
    const tabLists = () =>
      page.$$eval('[role="tablist"]', (lists) =>
        lists.map((list) =>
          [...list.querySelectorAll('[role="tab"]')].map((tab) => [
            (tab.textContent ?? "").trim().slice(0, 12),
            tab.getAttribute("aria-selected"),
          ]),
        ),
      );
    for (const tabs of await tabLists()) {
      assert.equal(
        tabs.filter(([, selected]) => selected === "true").length,
        1,
        JSON.stringify(tabs),
      );
      assert.ok(tabs.every(([, selected]) => selected === "true" || selected === "false"));
    }
    await page.click('[data-testid="tab-checks"]');
    assert.equal(await page.getAttribute('[data-testid="tab-checks"]', "aria-selected"), "true");
    const [workspace] = await tabLists();
    assert.deepEqual(
      workspace?.map(([, selected]) => selected),
      ["false", "true", "false"],
    );
    await context.close();
  });

  it("reports checks, fixes a missing role in one click, undoes a removal and survives a reload", async () => {
    const { context, page } = await newPage();
    await openPreset(page, "web-and-database");
    await page.click('[data-testid="component-item"][data-name="nginx"]');
    await page.click('[data-testid="remove-component"]');
    await page.click('[data-testid="tab-checks"]');
    await page.waitForSelector('[data-testid="finding"][data-rule="role-not-vendored"]');
    await page.click('[data-testid="fix"]');
    await page.waitForSelector('[data-testid="finding"][data-rule="role-not-vendored"]', {
      state: "detached",
    });
    await page.waitForSelector('[data-testid="component-item"][data-name="nginx"]');
    // remove the postgres role, then undo from the toast
    await page.click('[data-testid="component-item"][data-name="postgres"]');
    await page.click('[data-testid="remove-component"]');
    await page.waitForSelector('[data-testid="component-item"][data-name="postgres"]', {
      state: "detached",
    });
    await page.locator('[data-testid="toast"]', { hasText: "postgres" }).getByText("Undo").click();
    await page.waitForSelector('[data-testid="component-item"][data-name="postgres"]');
    // the project persists across a reload
    await page.fill('[data-testid="project-name"]', "persisted-project");
    // the project is saved (the effect itself, not a guessed delay) before the reload
    await page.waitForFunction(() =>
      Object.values(localStorage).some((value) => value.includes("persisted-project")),
    );
    await page.reload();
    await page.waitForSelector('[data-testid="builder"]');
    assert.equal(await page.inputValue('[data-testid="project-name"]'), "persisted-project");
    await context.close();
  });

  it("imports an INI inventory into the inventory editor", async () => {
    const { context, page } = await newPage();
    await openPreset(page, "single-server");
    const inventory = await page.$$eval('[data-testid="component-item"]', (items) =>
      items.map((item) => item.textContent ?? ""),
    );
    const name =
      inventory.find((text) => text.includes("inventory"))?.replace("inventory", "") ?? "";
    await page.click(`[data-testid="component-item"][data-name="${name}"]`);
    await page.click('[data-testid="import-ini"]');
    await page.fill(
      '[data-testid="ini-text"]',
      "[web]\nweb-1 cm_host=10.1.0.1\n[db]\nweb-1 role=both\ndb-9 cm_host=10.1.0.9\n[app:children]\nweb\ndb\n",
    );
    await page.click('[data-testid="ini-import-confirm"]');
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid="preview-content"]')
        ?.textContent?.includes("db-9 cm_host=10.1.0.9"),
    );
    const text = (await page.textContent('[data-testid="preview-content"]')) ?? "";
    assert.match(text, /\[app:children\]/);
    assert.equal(await page.locator('[data-testid="inventory-group"]').count(), 3);
    await context.close();
  });

  it("shows the architecture graph and edits a component on click", async () => {
    const { context, page, errors } = await newPage();
    await openPreset(page, "k8s-web-app");
    await page.click('[data-testid="tab-graph"]');
    await page.waitForSelector('[data-testid="graph-node"]');
    const count = await page.locator('[data-testid="graph-node"]').count();
    assert.equal(count, 7);
    await page.locator('[data-testid="graph-node"]', { hasText: "worker" }).click();
    await page.waitForSelector('[data-testid="component-form"]');
    assert.equal(await page.inputValue('[data-testid="field-name"]'), "worker");
    assert.deepEqual(errors, []);
    await context.close();
  });
});
