// kiln serve: its options, declared in the one command table with every other command's (each
// falling back to its environment variable), and the hand-over to the HTTP service (dist/server,
// loaded only for serve).
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "../../src/cli/args.ts";
import { SERVE } from "../../src/cli/command-list.ts";
import { serviceSettings } from "../../src/cli/commands/serve.ts";
import { parseConfig } from "../../src/cli/options.ts";
import { cleanUp, ensureBuilt, kiln, kilnBackground, tempDir } from "./helpers.ts";

/** The settings `kiln serve <argv>` runs with in the environment `env`. */
function settingsFor(argv: string[], env: NodeJS.ProcessEnv) {
  return serviceSettings(parse(argv, parseConfig(SERVE)), env);
}

// the server is compiled by build:core (tsc), not bundled; `npm test` builds it first
before(() => ensureBuilt());
after(cleanUp);

describe("kiln serve", () => {
  it("starts the service, answers /api/health, and stops on SIGTERM with exit 0", async () => {
    const child = kilnBackground(["serve", "--port", "0", "--drain-delay", "0"], tempDir(), {
      SERVICE_WORKERS: "1",
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const match = /^kiln listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
          if (match) resolve(match[1] as string);
        });
        child.on("exit", (code) => reject(new Error(`serve exited with ${code} before listening`)));
      });
      const response = await fetch(`${url}/api/health`);
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "ok");
      const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("serves whatever other words its command line holds: `kiln -C add serve` from a folder named like a command (the program's import of the server never runs from a code cache)", async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, "add"));
    const child = kilnBackground(["-C", "add", "serve", "--port", "0", "--drain-delay", "0"], cwd);
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = "";
        let err = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("\n")) resolve(out.split("\n")[0] as string);
        });
        child.stderr.on("data", (chunk: Buffer) => {
          err += chunk.toString();
        });
        child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
      });
      assert.match(line, /^kiln listening on http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("defaults: 127.0.0.1, port 4000, loopback origins, the render pool's own limits", () => {
    const settings = settingsFor([], {});
    assert.equal(settings.bind, "127.0.0.1");
    assert.equal(settings.port, 4000);
    assert.deepEqual(settings.allowedOrigins, []);
    assert.deepEqual(settings.render, {});
    assert.equal(settings.renderCacheBytes, undefined);
  });

  it("an option beats its environment variable; an empty variable counts as unset", () => {
    const tuned = settingsFor(
      ["--render-timeout", "500", "--render-fuel", "1000", "--render-memory", "32"],
      { SERVICE_PORT: "8080", SERVICE_RENDER_TIMEOUT_MS: "9", SERVICE_WORKERS: " " },
    );
    assert.equal(tuned.port, 8080);
    assert.equal(tuned.render.deadlineMs, 500);
    assert.equal(tuned.render.fuel, 1000);
    assert.equal(tuned.render.engineMemoryBytes, 32 * 1024 * 1024);
    assert.equal(tuned.render.size, undefined);
    const origins = settingsFor([], { SERVICE_ALLOWED_ORIGINS: " https://a.example , ,http://b" });
    assert.deepEqual(origins.allowedOrigins, ["https://a.example", "http://b"]);
  });

  it("the stop's durations: --drain-delay 5 s and --shutdown-timeout 25 s by default, in seconds, from the flag or SERVICE_DRAIN_DELAY_SECONDS / SERVICE_SHUTDOWN_TIMEOUT_SECONDS", () => {
    assert.deepEqual(settingsFor([], {}).drain, { delayMs: 5000, shutdownTimeoutMs: 25000 });
    const tuned = settingsFor(["--drain-delay", "0.5"], {
      SERVICE_DRAIN_DELAY_SECONDS: "9",
      SERVICE_SHUTDOWN_TIMEOUT_SECONDS: "40",
    });
    assert.deepEqual(tuned.drain, { delayMs: 500, shutdownTimeoutMs: 40000 });
    assert.throws(() => settingsFor(["--drain-delay", "1m"], {}), /drain delay must be a number/);
    assert.throws(
      () => settingsFor(["--shutdown-timeout", "2"], {}),
      /the drain delay \(5 s\) must not be longer than the shutdown timeout \(2 s\)/,
    );
  });

  it("--render-cache <MiB> and SERVICE_RENDER_CACHE_MB set the cache size", () => {
    const flag = settingsFor(["--render-cache", "8"], { SERVICE_RENDER_CACHE_MB: "2" });
    assert.equal(flag.renderCacheBytes, 8 * 1024 * 1024);
    assert.equal(settingsFor([], { SERVICE_RENDER_CACHE_MB: "0" }).renderCacheBytes, 0);
    assert.throws(() => settingsFor(["--render-cache", "lots"], {}), /render cache must be/);
  });

  it("--metrics on|off and --log-format json|text, or SERVICE_METRICS and SERVICE_LOG_FORMAT; other values are usage errors", () => {
    const defaults = settingsFor([], {});
    assert.equal(defaults.metrics, true);
    // unset: the service chooses by whether stdout is a terminal
    assert.equal(defaults.logFormat, undefined);
    const flags = settingsFor(["--metrics", "off", "--log-format", "text"], {
      SERVICE_METRICS: "on",
      SERVICE_LOG_FORMAT: "json",
    });
    assert.equal(flags.metrics, false);
    assert.equal(flags.logFormat, "text");
    const env = settingsFor([], { SERVICE_METRICS: "off", SERVICE_LOG_FORMAT: "json" });
    assert.equal(env.metrics, false);
    assert.equal(env.logFormat, "json");
    assert.throws(
      () => settingsFor(["--metrics", "no"], {}),
      /^UsageError: metrics must be `on` or `off`, got `no`$/,
    );
    assert.throws(
      () => settingsFor(["--log-format", "pretty"], {}),
      /^UsageError: log format must be `json` or `text`, got `pretty`$/,
    );
  });

  it("its help lists exactly the options of its declaration, each with its variable", () => {
    const result = kiln(["serve", "--help"], tempDir());
    assert.equal(result.status, 0);
    const listed = [...result.stdout.matchAll(/^ {2}(?:-[a-zA-Z], )?--([a-z-]+)/gm)].map(
      (m) => m[1],
    );
    assert.deepEqual(listed, [...SERVE.options.map((option) => option.name), "quiet", "help"]);
    for (const option of SERVE.options) {
      if (option.env) assert.match(result.stdout, new RegExp(`env ${option.env}`), option.name);
    }
    assert.match(
      result.stdout,
      /--bind <address> +address to listen on \(env SERVICE_BIND, default: 127\.0\.0\.1\)/,
    );
  });
});
