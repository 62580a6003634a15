// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` in the service's registry configuration is what is tested
// The add dialog's search, end to end: real headless Chromium against `kiln serve --ui
// --config <file>`, whose registries Debian's nginx serves on a loopback port (@acme open,
// @team behind a bearer token the service holds). Typing in the dialog searches every
// registry through GET /api/search; choosing a result adds the component by its reference.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { cleanUp, tempDir, write } from "../cli/helpers.ts";
import { publishRegistry } from "../cli/registry-fixture.ts";
import { nginxSkip, startNginx, type TestNginx } from "../tools/nginx.ts";
import { type Dashboard, openPreset, skipBrowser, startDashboard } from "./harness.ts";

const TOKEN = "e2e-t0ken-5ecret";

function item(name: string, title: string) {
  return {
    name,
    category: "cache",
    title,
    description: `${title} from a team registry.`,
    fields: [{ name: "image", default: `${name}:1.0` }],
    files: [
      {
        path: `{{ name }}-${name}.yaml`,
        template:
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name }}\ndata:\n  image: {{ image }}\n",
      },
    ],
  };
}

let dashboard: Dashboard;
let nginx: TestNginx;

describe("the add dialog searches every registry", { skip: skipBrowser || nginxSkip() }, () => {
  before(async () => {
    const root = tempDir();
    publishRegistry(join(root, "acme"), "acme", [
      { item: item("redis", "Redis"), version: "1.2.0" },
    ]);
    publishRegistry(join(root, "team"), "team", [
      { item: item("redis-cluster", "Redis cluster"), version: "3.1.0" },
    ]);
    nginx = await startNginx({ root, token: TOKEN, user: "u", password: "p" });
    const config = write(
      tempDir(),
      "service.toml",
      [
        "[registries]",
        `"@acme" = "${nginx.origin}/open/acme/{name}.json"`,
        '[registries."@team"]',
        `url = "${nginx.origin}/token/team/{name}.json"`,
        'headers = { Authorization = "Bearer ${TEAM_TOKEN}" }',
        "",
      ].join("\n"),
    );
    dashboard = await startDashboard({ args: ["--config", config], env: { TEAM_TOKEN: TOKEN } });
  });

  after(async () => {
    await dashboard?.close();
    await nginx?.stop();
    cleanUp();
  });

  it("lists the matches with registry, version and title; choosing one adds it by its reference", async () => {
    const { context, page, errors } = await dashboard.newPage();
    await openPreset(page, "k8s-web-app");
    await page.click('[data-testid="add-deploy"]');
    await page.fill('[data-testid="registry-search"]', "redis");
    const acme = page.locator('[data-testid="result-@acme/redis"]');
    const team = page.locator('[data-testid="result-@team/redis-cluster"]');
    await team.waitFor();
    assert.deepEqual(await acme.locator("span").allTextContents(), [
      "@acme",
      "@acme/redis",
      "1.2.0",
      "Redis",
    ]);
    assert.deepEqual(await team.locator("span").allTextContents(), [
      "@team",
      "@team/redis-cluster",
      "3.1.0",
      "Redis cluster",
    ]);
    // exact name first, then the name that starts with the query
    const order = await page
      .locator('[data-testid^="result-"]')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-testid")));
    assert.deepEqual(order, ["result-@acme/redis", "result-@team/redis-cluster"]);

    await team.click();
    await page.fill('[data-testid="new-name"]', "cache");
    await page.waitForFunction(
      () => !(document.querySelector('[data-testid="confirm-add"]') as HTMLButtonElement).disabled,
    );
    await page.click('[data-testid="confirm-add"]');
    await page.waitForSelector('[data-testid="component-item"][data-name="cache"]');
    // rendered through the service from @team's item: its file name is the registry's template
    await page.waitForFunction(() =>
      document.body.textContent?.includes("cache-redis-cluster.yaml"),
    );
    assert.deepEqual(errors, []);
    await context.close();
  });
});
