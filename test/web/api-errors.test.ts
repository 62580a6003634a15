// The dashboard's API layer keeps the service's `detail` beside its message (what exactly was
// wrong and what to do), from a failed render through the project pipeline to what the preview
// shows, and from a failed inspect to the item's error.
import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { renderCollectingErrors } from "../../src/core/project/render-components.ts";
import {
  ApiError,
  errorAnswer,
  failureOf,
  inspect,
  refusalKind,
  render,
  renderThroughApi,
} from "../../web/src/api.ts";

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

/** Every request answered with this JSON body and status. */
function answer(status: number, body: unknown): void {
  globalThis.fetch = async () =>
    new Response(typeof body === "string" ? body : JSON.stringify(body), {
      status,
      headers: { "content-type": typeof body === "string" ? "text/plain" : "application/json" },
    });
}

const invalid = {
  code: "invalid_request",
  error: "automation/inventory: `hosts` is not valid JSON - line 1, column 74: expected a value",
  detail: "a value starting with `[` or `{` is read as JSON",
};

describe("the dashboard's API errors", () => {
  test("errorAnswer reads `error`, `detail` and the kind of refusal (`code`); without a detail, the message alone; text as text", async () => {
    assert.deepEqual(await errorAnswer(new Response(JSON.stringify(invalid), { status: 400 })), {
      error: invalid.error,
      code: "invalid_request",
      detail: invalid.detail,
    });
    assert.deepEqual(
      await errorAnswer(new Response('{"code":"not_found","error":"no preset"}', { status: 404 })),
      { error: "no preset", code: "not_found" },
    );
    // a code that is none of kiln's error kinds is left out, so the dashboard words no kind
    assert.deepEqual(
      await errorAnswer(new Response('{"code":"teapot","error":"no"}', { status: 418 })),
      { error: "no" },
    );
    assert.deepEqual(
      await errorAnswer(
        new Response("Failed to parse the request body as JSON: x", { status: 400 }),
      ),
      { error: "Failed to parse the request body as JSON: x" },
    );
  });

  test("a failed render keeps the detail, and the pipeline keeps it with the component", async () => {
    answer(400, invalid);
    const request = {
      reference: "automation/inventory",
      name: "prod",
      fields: { hosts: "[{},]" },
      labels: {},
      defaultNamespace: "default",
    };
    assert.deepEqual(await render(request), {
      ok: false,
      error: invalid.error,
      code: "invalid_request",
      detail: invalid.detail,
    });
    const [result] = await renderCollectingErrors([request], {
      defaultNamespace: "default",
      render: renderThroughApi,
    });
    assert.equal(result?.ok, false);
    // the kind of refusal survives the pipeline, through the error it caught
    assert.equal(result?.ok === false && refusalKind(result), "invalid_request");
    assert.equal(result?.ok === false && result.error, invalid.error);
    assert.equal(result?.ok === false && result.detail, invalid.detail);
  });

  test("a failed render keeps the field it is about, in parts, and so does the pipeline", async () => {
    const field = {
      field: "replicas",
      path: "",
      rule: "invalid",
      expected: "must be a whole number from 0 to 2147483647, written in digits",
      got: "three",
      code: "whole_number",
      params: { min: 0, max: 2147483647 },
    } as const;
    answer(400, { code: "invalid_request", error: "k8s/deployment: `replicas` ...", field });
    const request = {
      reference: "k8s/deployment",
      name: "web",
      fields: { image: "nginx", replicas: "three" },
      labels: {},
      defaultNamespace: "default",
    };
    const result = await render(request);
    assert.deepEqual(result.ok === false && result.field, field);
    const [kept] = await renderCollectingErrors([request], {
      defaultNamespace: "default",
      render: renderThroughApi,
    });
    assert.deepEqual(kept?.ok === false && kept.field, field);
    // a body whose `field` is not of that shape is left out rather than half shown
    answer(400, { code: "invalid_request", error: "x", field: { field: "replicas" } });
    assert.deepEqual(await errorAnswer(await fetch("api/render")), {
      error: "x",
      code: "invalid_request",
    });
  });

  test("a failed inspect throws an ApiError with the detail (why the item is invalid, why a fetch failed)", async () => {
    answer(400, {
      code: "invalid_request",
      error: "failed to fetch registry item from http://127.0.0.1:9/x.json",
      detail: "HTTP status 404",
    });
    const error = await inspect("http://127.0.0.1:9/x.json").then(
      () => assert.fail("inspect should fail"),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof ApiError);
    assert.deepEqual(failureOf(error), {
      error: "failed to fetch registry item from http://127.0.0.1:9/x.json",
      detail: "HTTP status 404",
      code: "invalid_request",
    });
    assert.deepEqual(failureOf(new Error("offline")), { error: "offline" });
  });
});
