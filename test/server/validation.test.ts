// Refused values and the `detail` key over a real socket: a value that does not fit its declared
// format or shape is 400 `invalid_request` with the component, the field, the path and what
// was expected, and `detail` after `code` and `error` says what to do; an invalid item's and a
// failed fetch's reasons reach the caller; an error with nothing more to say keeps exactly the
// spec's two keys; an undeclared field stays silent, as the spec passes it to the template.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { FieldProblem } from "../../src/core/errors.ts";
import { type RunningServer, startServer } from "../../src/server/server.ts";
import { postJson, type RawResponse, raw } from "./helpers.ts";

const workDir = mkdtempSync(join(tmpdir(), "kiln-validation-"));
let service: RunningServer;
let itemServer: Server;
let itemBase = "";
let closedPort = 0;

/** A stranger's item declaring a shape: rendered in a worker, checked there. */
const shaped = {
  name: "shaped",
  category: "custom",
  fields: [
    {
      name: "targets",
      required: true,
      description: "Where to send it.",
      schema: {
        type: "array",
        items: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
      },
    },
  ],
  files: [{ path: "{{ name }}.txt", template: "{{ targets | length }}\n" }],
};

before(async () => {
  mkdirSync(join(workDir, "items"));
  writeFileSync(join(workDir, "items", "shaped.json"), JSON.stringify(shaped));
  writeFileSync(
    join(workDir, "items", "bad.json"),
    JSON.stringify({ ...shaped, fields: [{ name: "x", required: "yes" }] }),
  );
  itemServer = createServer((_request, response) => {
    response.statusCode = 404;
    response.end("not here");
  });
  await new Promise<void>((resolve) => itemServer.listen(0, "127.0.0.1", resolve));
  itemBase = `http://127.0.0.1:${(itemServer.address() as AddressInfo).port}`;
  // a port nobody listens on: take one, then give it back
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  service = await startServer({ port: 0, cwd: workDir, log: () => {} });
});

after(async () => {
  await service.close();
  await new Promise((resolve) => itemServer.close(resolve));
  rmSync(workDir, { recursive: true, force: true });
});

/** The error body, checking its status, type and key order. */
/** A JSON error body: code, error, and kiln's own detail and field when there are. */
interface ErrorBody {
  code?: string;
  error?: string;
  detail?: string;
  field?: FieldProblem;
}

function errorBody(response: RawResponse, status = 400): ErrorBody {
  assert.equal(response.status, status, response.body);
  assert.equal(response.headers["content-type"], "application/json");
  return JSON.parse(response.body) as ErrorBody;
}

const render = (body: Record<string, unknown>) =>
  postJson(service.url, { defaultNamespace: "default", ...body });
const inspect = (ref: string) =>
  raw(service.url, { path: `/api/registry/inspect?ref=${encodeURIComponent(ref)}` });

describe("refused values", () => {
  test("a number that is not one: 400 invalid_request, `detail` after `code` and `error`, then the field in parts", async () => {
    const body = errorBody(
      await render({
        reference: "k8s/deployment",
        name: "web",
        image: "nginx",
        fields: { replicas: "three" },
      }),
    );
    assert.deepEqual(Object.keys(body), ["code", "error", "detail", "field"]);
    assert.deepEqual(body, {
      code: "invalid_request",
      error:
        'k8s/deployment: `replicas` must be a whole number from 0 to 2147483647, written in digits; got "three"',
      detail: "replicas: Number of pods.",
      field: {
        field: "replicas",
        path: "",
        rule: "invalid",
        expected: "must be a whole number from 0 to 2147483647, written in digits",
        got: "three",
        code: "whole_number",
        params: { min: 0, max: 2147483647 },
      },
    });
    // the rule in parts comes after the keys clients already read, which keep their order
    assert.deepEqual(Object.keys(body.field as object), [
      "field",
      "path",
      "rule",
      "expected",
      "got",
      "code",
      "params",
    ]);
  });

  test("a Kubernetes name that is not a DNS label", async () => {
    for (const name of ["My_Service", "sub/dir", ""]) {
      const body = errorBody(await render({ reference: "k8s/service", name }));
      assert.match(
        body.error ?? "",
        /^k8s\/service: `name` must be a DNS label \(RFC 1035\)/,
        name,
      );
      assert.match(body.detail ?? "", /render request's `name`/);
      assert.equal(body.field?.field, "name", name);
      assert.equal(body.field?.got, name);
    }
  });

  test("JSON that does not parse: line and column; a wrong shape: the path inside it", async () => {
    const comma = errorBody(
      await render({
        reference: "automation/inventory",
        name: "prod",
        fields: { hosts: '[{"group": "web", "members": [{"name": "web-1"}]},]' },
      }),
    );
    assert.equal(
      comma.error,
      "automation/inventory: `hosts` is not valid JSON - line 1, column 51: expected a value (an object, array, string, number, true, false or null)",
    );
    assert.match(
      comma.detail ?? "",
      /^a value starting with `\[` or `\{` is read as JSON\nhosts: JSON array of groups/,
    );
    const plays = errorBody(
      await render({
        reference: "automation/playbook",
        name: "web",
        fields: { plays: '[{"hosts": "web", "roles": [{"role": "nginx", "whn": "x"}]}]' },
      }),
    );
    assert.equal(
      plays.error,
      'automation/playbook: `plays[0].roles[0]` has an unknown key "whn"; did you mean `when`?',
    );
  });

  test("a stranger's item is checked in its render worker against its own schema", async () => {
    const body = errorBody(
      await render({
        reference: "items/shaped.json",
        name: "x",
        fields: { targets: '[{"uri": "a"}]' },
      }),
    );
    assert.deepEqual(body, {
      code: "invalid_request",
      error: 'custom/shaped: `targets[0]` has an unknown key "uri"; did you mean `url`?',
      detail: "targets: Where to send it.",
      field: {
        field: "targets",
        path: "[0]",
        rule: "invalid",
        expected: 'has an unknown key "uri"; did you mean `url`?',
        got: '{"uri":"a"}',
        code: "json_unknown_key",
        params: { key: "uri", suggestion: "url", keys: ["url"] },
      },
    });
    const ok = await render({
      reference: "items/shaped.json",
      name: "x",
      fields: { targets: '[{"url": "a"}]' },
    });
    assert.equal(ok.status, 200, ok.body);
  });

  test("the spec's required-field message, and where to give the value", async () => {
    const body = errorBody(await render({ reference: "automation/group-vars", name: "web" }));
    assert.deepEqual(body, {
      code: "invalid_request",
      error: "--group is required for automation/group-vars",
      detail: 'give it a value in the component\'s fields: "fields": {"group": "web"}',
      field: {
        field: "group",
        path: "",
        rule: "missing",
        expected: "is required",
        code: "required",
        params: {},
      },
    });
  });

  test("an undeclared field is not an error and the answer says nothing of it", async () => {
    const response = await render({
      reference: "k8s/deployment",
      name: "web",
      image: "nginx",
      fields: { replica: "3" },
    });
    assert.equal(response.status, 200, response.body);
    assert.deepEqual(Object.keys(JSON.parse(response.body) as object), ["component", "files"]);
  });
});

describe("why an inspect failed", () => {
  test("an invalid item: the spec's message, and what did not fit", async () => {
    const body = errorBody(await inspect("items/bad.json"));
    assert.deepEqual(body, {
      code: "invalid_request",
      error: "items/bad.json is not a valid registry item",
      detail: "fields[0].required: invalid type: string, expected a boolean",
    });
  });

  test("a URL that answers 404: the detail says HTTP status 404", async () => {
    const url = `${itemBase}/missing.json`;
    assert.deepEqual(errorBody(await inspect(url)), {
      code: "invalid_request",
      error: `failed to fetch registry item from ${url}`,
      detail: "HTTP status 404",
    });
  });

  test("a URL nobody answers: the connection was refused", async () => {
    const url = `http://127.0.0.1:${closedPort}/item.json`;
    const body = errorBody(await inspect(url));
    assert.equal(body.error, `failed to fetch registry item from ${url}`);
    assert.equal(body.detail, "the connection was refused (ECONNREFUSED)");
  });

  test("an error with nothing more to say keeps exactly the spec's two keys", async () => {
    const unknown = await inspect("nope/thing");
    assert.equal(
      unknown.body,
      JSON.stringify({
        code: "invalid_request",
        error:
          "`nope/thing` is not a built-in component and not a URL or existing local file - run `kiln list` to see the built-ins, or pass a URL or path to a registry-item JSON file",
      }),
    );
    const preset = await raw(service.url, { path: "/api/presets/nope" });
    assert.equal(preset.status, 404);
    assert.equal(preset.body, '{"code":"not_found","error":"no preset template named `nope`"}');
  });
});
