// The render request's optional `automationProfile` key (kiln's own; the spec ignores unknown
// keys, so clients that never send it get the spec's output), over a real socket.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import type { RunningServer } from "../../src/server/server.ts";
import { postJson, startFixtureServer } from "./helpers.ts";

let service: RunningServer;
before(async () => {
  service = await startFixtureServer({ registry: builtinRegistry() });
});
after(() => service.close());

const config = (extra: Record<string, unknown>) =>
  postJson(service.url, { reference: "automation/config", name: "c", ...extra });

describe("POST /api/render with automationProfile", () => {
  test("absent or `cm`: cm.cfg, as the spec writes it; `ansible`: ansible.cfg", async () => {
    for (const [extra, path] of [
      [{}, "cm.cfg"],
      [{ automationProfile: null }, "cm.cfg"],
      [{ automationProfile: "cm" }, "cm.cfg"],
      [{ automationProfile: "ansible" }, "ansible.cfg"],
    ] as const) {
      const response = await config(extra);
      assert.equal(response.status, 200, response.body);
      assert.equal(JSON.parse(response.body).files[0].path, path);
    }
    const inventory = await postJson(service.url, {
      reference: "automation/inventory",
      name: "i",
      fields: { hosts: '[{"group":"g","members":[{"name":"h","cm_host":"10.0.0.9"}]}]' },
      automationProfile: "ansible",
    });
    assert.match(JSON.parse(inventory.body).files[0].content, /^h ansible_host=10\.0\.0\.9 /m);
  });

  test("an unknown profile is a 422 worded like serde's enums", async () => {
    const response = await config({ automationProfile: "chef" });
    assert.equal(response.status, 422);
    assert.equal(
      response.body,
      "Failed to deserialize the JSON body into the target type: automationProfile: unknown variant `chef`, expected `cm` or `ansible`",
    );
  });
});
