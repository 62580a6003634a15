// The Kubernetes components of the built-in catalogue (k8s/deployment, k8s/service,
// k8s/ingress), rendered through the real core: every output must parse as YAML, read back as
// the expected structure under YAML 1.1 and 1.2 alike, and match the Kubernetes schema strictly.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseDocument } from "yaml";
import { toItemView } from "../../src/core/item.ts";
import { Registry } from "../../src/core/registry.ts";
import { renderItem } from "../../src/core/render-item.ts";
import { BUILTIN_REGISTRY_DIR, loadComponentFolder } from "../../src/node/builtin-registry.ts";
import { builtinRenderer } from "../../src/node/builtin-renderer.ts";
import { resolveReference } from "../../src/node/resolve-reference.ts";
import { k8sManifestErrors, validateK8sManifest } from "../tools/k8s-schema.ts";

// Only this file's part of the catalogue is loaded (in registry order), so these tests do not
// depend on the other categories' folders.
const order = JSON.parse(
  readFileSync(join(BUILTIN_REGISTRY_DIR, "index.json"), "utf8"),
) as string[];
const registry = new Registry(
  order
    .filter((reference) => reference.startsWith("k8s/"))
    .map((reference) => loadComponentFolder(join(BUILTIN_REGISTRY_DIR, reference), reference)),
);
// the renderer kiln itself renders built-ins with: the compiled templates, or the sandboxed
// engine under KILN_ENGINE=sandbox (CI runs these suites both ways)
const engine = builtinRenderer();

interface Input {
  fields?: Record<string, string>;
  labels?: Record<string, string>;
  defaultNamespace?: string;
}

async function renderOne(reference: string, name: string, input: Input = {}) {
  const item = await resolveReference(reference, { registry });
  const { files } = renderItem(engine, item, {
    name,
    fields: input.fields ?? {},
    labels: input.labels ?? {},
    defaultNamespace: input.defaultNamespace ?? "default",
  });
  assert.equal(files.length, 1);
  return files[0] as { path: string; content: string };
}

/**
 * Parses one YAML document under YAML 1.1 (what Kubernetes' YAML reader follows) and 1.2, with
 * no error or warning, and requires both readings to agree.
 */
function loadYaml(text: string): Record<string, unknown> {
  const readings = (["1.1", "1.2"] as const).map((version) => {
    const doc = parseDocument(text, { version, uniqueKeys: true, prettyErrors: false });
    assert.deepEqual(doc.errors, [], `YAML ${version} errors in:\n${text}`);
    assert.deepEqual(doc.warnings, [], `YAML ${version} warnings in:\n${text}`);
    return doc.toJS() as Record<string, unknown>;
  });
  assert.deepEqual(readings[0], readings[1], `YAML 1.1 and 1.2 read differently:\n${text}`);
  return readings[0] as Record<string, unknown>;
}

/** Renders, parses and strictly validates one manifest. */
async function manifest(reference: string, name: string, input: Input = {}) {
  const file = await renderOne(reference, name, input);
  assert.ok(file.content.endsWith("\n"), "a file ends with a newline");
  const object = loadYaml(file.content);
  validateK8sManifest(object);
  // biome-ignore lint/suspicious/noExplicitAny: the tests walk the parsed manifest freely
  return { path: file.path, object: object as any };
}

/** Values that YAML would read as something else, or not at all, unless quoted. */
const AWKWARD: Record<string, string> = {
  colon: "a: b",
  hash: "# not a comment",
  star: "*alias",
  amp: "&anchor",
  yes: "yes",
  no: "no",
  on: "On",
  null: "null",
  tilde: "~",
  empty: "",
  spaces: "  padded  ",
  octal: "0755",
  number: "1_000",
  float: "1.5",
  quote: 'it\'s "quoted"',
  braces: "{a: 1}",
  dash: "- item",
  newline: "two\nlines",
  percent: "%TAG",
  backtick: "`cmd`",
  unicode: "żółw ✓",
};

describe("catalogue metadata: k8s components", () => {
  it("lists deployment, service and ingress first, in the spec's registry order", () => {
    assert.deepEqual(order.slice(0, 3), ["k8s/deployment", "k8s/service", "k8s/ingress"]);
  });

  it("k8s/deployment: title, description, fields and output path", async () => {
    const view = toItemView(await resolveReference("k8s/deployment", { registry }));
    assert.equal(view.title, "Deployment");
    assert.equal(view.description, "Pods running one container image.");
    assert.deepEqual(
      view.fields.map((f) => [f.name, f.required, f.default]),
      [
        ["image", true, null],
        ["replicas", false, "1"],
        ["port", false, "80"],
      ],
    );
    assert.ok(view.fields[0]?.example, "image has an example value");
    assert.deepEqual(view.files, ["{{ name }}-deployment.yaml"]);
  });

  it("k8s/service: title, description, fields and output path", async () => {
    const view = toItemView(await resolveReference("k8s/service", { registry }));
    assert.equal(view.title, "Service");
    assert.equal(view.description, "A stable address for pods.");
    assert.deepEqual(
      view.fields.map((f) => [f.name, f.required, f.default]),
      [
        ["port", false, "80"],
        ["target_port", false, null],
      ],
    );
    assert.equal(view.fields[1]?.description, "container port, defaults to the service port");
    assert.deepEqual(view.files, ["{{ name }}-service.yaml"]);
  });

  it("k8s/ingress: title, description, fields and output path", async () => {
    const view = toItemView(await resolveReference("k8s/ingress", { registry }));
    assert.equal(view.title, "Ingress");
    assert.equal(view.description, "Routes HTTP traffic to a service.");
    assert.deepEqual(
      view.fields.map((f) => [f.name, f.required, f.default, f.example]),
      [
        ["host", false, null, "app.example.com"],
        ["path", false, "/", null],
        ["service", false, null, null],
        ["port", false, "80", null],
      ],
    );
    assert.deepEqual(view.files, ["{{ name }}-ingress.yaml"]);
  });

  it("resolves by the name after the last slash, as the spec says", async () => {
    assert.equal((await resolveReference("other/ingress", { registry })).category, "k8s");
  });
});

describe("k8s/deployment renders", () => {
  it("with only the required image: the whole manifest, defaults applied", async () => {
    const { path, object } = await manifest("k8s/deployment", "web", {
      fields: { image: "nginx:1.27" },
    });
    assert.equal(path, "web-deployment.yaml");
    assert.deepEqual(object, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default", labels: { app: "web" } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: {
            containers: [{ name: "web", image: "nginx:1.27", ports: [{ containerPort: 80 }] }],
          },
        },
      },
    });
  });

  it("fails without the required image", async () => {
    await assert.rejects(manifest("k8s/deployment", "web"), {
      message: "--image is required for k8s/deployment",
    });
  });

  it("with realistic values: numbers stay numbers, labels reach the pods", async () => {
    const { object } = await manifest("k8s/deployment", "shop-api", {
      fields: { image: "ghcr.io/acme/shop-api:2.3.1", replicas: "3", port: "8080" },
      labels: { tier: "backend", "app.kubernetes.io/part-of": "shop" },
      defaultNamespace: "shop",
    });
    assert.equal(object.metadata.namespace, "shop");
    assert.equal(object.spec.replicas, 3);
    assert.equal(typeof object.spec.replicas, "number");
    const labels = { app: "shop-api", tier: "backend", "app.kubernetes.io/part-of": "shop" };
    assert.deepEqual(object.metadata.labels, labels);
    assert.deepEqual(object.spec.template.metadata.labels, labels);
    assert.deepEqual(object.spec.selector.matchLabels, { app: "shop-api" });
    assert.equal(object.spec.template.spec.containers[0].ports[0].containerPort, 8080);
  });

  it("with awkward values: every string round-trips, the namespace field wins", async () => {
    const { object } = await manifest("k8s/deployment", "yes", {
      fields: {
        image: "registry.example.com:5000/team/app@sha256:0123abcd # pinned",
        namespace: "no",
      },
      labels: { ...AWKWARD, yes: "on" },
      defaultNamespace: "ignored",
    });
    assert.equal(object.metadata.name, "yes");
    assert.equal(object.metadata.namespace, "no");
    assert.equal(
      object.spec.template.spec.containers[0].image,
      "registry.example.com:5000/team/app@sha256:0123abcd # pinned",
    );
    assert.deepEqual(object.spec.template.metadata.labels, { app: "yes", ...AWKWARD, yes: "on" });
    assert.deepEqual(object.spec.selector.matchLabels, { app: "yes" });
  });

  it("with a supplied app label: the selector follows it", async () => {
    const { object } = await manifest("k8s/deployment", "web", {
      fields: { image: "nginx" },
      labels: { app: "*shop: front" },
    });
    assert.deepEqual(object.spec.selector.matchLabels, { app: "*shop: front" });
    assert.equal(object.spec.template.metadata.labels.app, "*shop: front");
  });

  it("with empty values: strings stay empty, numbers fall back to their defaults", async () => {
    const { object } = await manifest("k8s/deployment", "web", {
      fields: { image: "", replicas: "", port: "" },
    });
    assert.equal(object.spec.template.spec.containers[0].image, "");
    assert.equal(object.spec.replicas, 1);
    assert.equal(object.spec.template.spec.containers[0].ports[0].containerPort, 80);
  });
});

describe("k8s/service renders", () => {
  it("with defaults: the whole manifest, target port falls back to the port", async () => {
    const { path, object } = await manifest("k8s/service", "web");
    assert.equal(path, "web-service.yaml");
    assert.deepEqual(object, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "default", labels: { app: "web" } },
      spec: {
        selector: { app: "web" },
        ports: [{ port: 80, targetPort: 80, protocol: "TCP" }],
      },
    });
  });

  it("with realistic values: selector holds app plus every label", async () => {
    const { object } = await manifest("k8s/service", "shop-api", {
      fields: { port: "80", target_port: "8080", namespace: "shop" },
      labels: { tier: "backend", "app.kubernetes.io/part-of": "shop" },
    });
    assert.equal(object.metadata.namespace, "shop");
    assert.deepEqual(object.spec.selector, {
      app: "shop-api",
      tier: "backend",
      "app.kubernetes.io/part-of": "shop",
    });
    assert.deepEqual(object.spec.ports, [{ port: 80, targetPort: 8080, protocol: "TCP" }]);
    assert.equal(typeof object.spec.ports[0].targetPort, "number");
  });

  it("selects the pods of a deployment given the same name and labels", async () => {
    const labels = { tier: "web", team: "a: b" };
    const service = await manifest("k8s/service", "web", { labels });
    const deployment = await manifest("k8s/deployment", "web", {
      fields: { image: "nginx" },
      labels,
    });
    const podLabels = deployment.object.spec.template.metadata.labels;
    for (const [key, value] of Object.entries(service.object.spec.selector)) {
      assert.equal(podLabels[key], value, `pod label ${key}`);
    }
  });

  it("with a port only: the target port is that port", async () => {
    const { object } = await manifest("k8s/service", "web", { fields: { port: "8443" } });
    assert.deepEqual(object.spec.ports, [{ port: 8443, targetPort: 8443, protocol: "TCP" }]);
  });

  it("with a named target port: written as a string", async () => {
    const { object } = await manifest("k8s/service", "web", { fields: { target_port: "http" } });
    assert.equal(object.spec.ports[0].targetPort, "http");
  });

  it("with awkward values: labels round-trip in the selector", async () => {
    const { object } = await manifest("k8s/service", "on", {
      labels: AWKWARD,
      fields: { namespace: "team #1" },
    });
    assert.equal(object.metadata.name, "on");
    assert.equal(object.metadata.namespace, "team #1");
    assert.deepEqual(object.spec.selector, { app: "on", ...AWKWARD });
  });

  it("with empty values: the port falls back to 80 and the target port to the port", async () => {
    const { object } = await manifest("k8s/service", "web", {
      fields: { port: "", target_port: "" },
    });
    assert.deepEqual(object.spec.ports, [{ port: 80, targetPort: 80, protocol: "TCP" }]);
  });
});

describe("k8s/ingress renders", () => {
  it("with defaults: host <name>.example.com, path /, backend the ingress name", async () => {
    const { path, object } = await manifest("k8s/ingress", "web");
    assert.equal(path, "web-ingress.yaml");
    assert.deepEqual(object, {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name: "web", namespace: "default", labels: { app: "web" } },
      spec: {
        rules: [
          {
            host: "web.example.com",
            http: {
              paths: [
                {
                  path: "/",
                  pathType: "Prefix",
                  backend: { service: { name: "web", port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    });
  });

  it("with realistic values", async () => {
    const { object } = await manifest("k8s/ingress", "shop", {
      fields: { host: "shop.acme.io", path: "/api", service: "shop-api", port: "8080" },
      labels: { tier: "edge" },
      defaultNamespace: "shop",
    });
    assert.equal(object.metadata.namespace, "shop");
    assert.deepEqual(object.metadata.labels, { app: "shop", tier: "edge" });
    const rule = object.spec.rules[0];
    assert.equal(rule.host, "shop.acme.io");
    assert.deepEqual(rule.http.paths[0], {
      path: "/api",
      pathType: "Prefix",
      backend: { service: { name: "shop-api", port: { number: 8080 } } },
    });
    assert.equal(typeof rule.http.paths[0].backend.service.port.number, "number");
  });

  it("with a wildcard host: it round-trips as a string", async () => {
    const { object } = await manifest("k8s/ingress", "web", { fields: { host: "*.example.com" } });
    assert.equal(object.spec.rules[0].host, "*.example.com");
  });

  it("with a named service port: written as the port name", async () => {
    const { object } = await manifest("k8s/ingress", "web", { fields: { port: "http" } });
    assert.deepEqual(object.spec.rules[0].http.paths[0].backend.service.port, { name: "http" });
  });

  it("with awkward values: every string round-trips", async () => {
    const { object } = await manifest("k8s/ingress", "no", {
      // the host takes only a DNS name: `true` is one that YAML would read as a boolean
      fields: { host: "true", path: "/a: b #c", service: "yes", namespace: "~" },
      labels: AWKWARD,
    });
    assert.equal(object.metadata.name, "no");
    assert.equal(object.metadata.namespace, "~");
    assert.deepEqual(object.metadata.labels, { app: "no", ...AWKWARD });
    const rule = object.spec.rules[0];
    assert.equal(rule.host, "true");
    assert.equal(rule.http.paths[0].path, "/a: b #c");
    assert.equal(rule.http.paths[0].backend.service.name, "yes");
  });

  it("with empty values: the same fallbacks as unset ones", async () => {
    const { object } = await manifest("k8s/ingress", "web", {
      fields: { host: "", path: "", service: "", port: "" },
    });
    const rule = object.spec.rules[0];
    assert.equal(rule.host, "web.example.com");
    assert.equal(rule.http.paths[0].path, "/");
    assert.deepEqual(rule.http.paths[0].backend.service, { name: "web", port: { number: 80 } });
  });
});

describe("strict Kubernetes schema validation (test/tools/k8s-schema.ts)", () => {
  const deployment = () =>
    manifest("k8s/deployment", "web", { fields: { image: "nginx" } }).then((m) => m.object);

  it("accepts every rendered component", async () => {
    for (const reference of ["k8s/deployment", "k8s/service", "k8s/ingress"]) {
      const { object } = await manifest(reference, "web", { fields: { image: "nginx" } });
      assert.deepEqual(k8sManifestErrors(object), [], reference);
    }
  });

  it("rejects a misspelt field: replica", async () => {
    const object = await deployment();
    object.spec.replica = object.spec.replicas;
    delete object.spec.replicas;
    assert.throws(
      () => validateK8sManifest(object),
      /\/spec must NOT have additional properties \(replica\)/,
    );
  });

  it("rejects a misspelt field deep in the pod template: contianers", async () => {
    const object = await deployment();
    const pod = object.spec.template.spec;
    pod.contianers = pod.containers;
    delete pod.containers;
    const errors = k8sManifestErrors(object);
    assert.ok(
      errors.some((e) => e.includes("(contianers)")),
      errors.join("\n"),
    );
    assert.ok(
      errors.some((e) => e.includes("required property 'containers'")),
      errors.join("\n"),
    );
  });

  it("rejects an unknown field in metadata, a container and a port", async () => {
    const object = await deployment();
    object.metadata.label = { a: "b" };
    object.spec.template.spec.containers[0].imagePullPolicyy = "Always";
    object.spec.template.spec.containers[0].ports[0].contanerPort = 80;
    const errors = k8sManifestErrors(object).join("\n");
    for (const field of ["(label)", "(imagePullPolicyy)", "(contanerPort)"]) {
      assert.ok(errors.includes(field), `${field} in:\n${errors}`);
    }
  });

  it("rejects wrong types: replicas as a string, a label value as a number", async () => {
    const object = await deployment();
    object.spec.replicas = "3";
    object.metadata.labels.count = 3;
    const errors = k8sManifestErrors(object).join("\n");
    assert.match(errors, /\/spec\/replicas must be integer/);
    assert.match(errors, /\/metadata\/labels\/count must be string/);
  });

  it("rejects a service port as a string and an ingress backend typo", async () => {
    const service = (await manifest("k8s/service", "web")).object;
    service.spec.ports[0].port = "80";
    assert.match(k8sManifestErrors(service).join("\n"), /\/spec\/ports\/0\/port must be integer/);
    const ingress = (await manifest("k8s/ingress", "web")).object;
    const backend = ingress.spec.rules[0].http.paths[0].backend;
    backend.servce = backend.service;
    delete backend.service;
    assert.match(k8sManifestErrors(ingress).join("\n"), /\(servce\)/);
  });

  it("keeps maps open: any label key is allowed", async () => {
    const object = await deployment();
    object.metadata.labels["example.com/any-key"] = "x";
    assert.deepEqual(k8sManifestErrors(object), []);
  });

  it("rejects an unknown kind or apiVersion, and a missing one", () => {
    assert.match(
      k8sManifestErrors({ apiVersion: "v1", kind: "Deploymnet" })[0] ?? "",
      /no Kubernetes/,
    );
    assert.match(
      k8sManifestErrors({ apiVersion: "apps/v2", kind: "Deployment" })[0] ?? "",
      /no Kubernetes/,
    );
    assert.match(
      k8sManifestErrors({ apiVersion: "../../x", kind: "Pod" })[0] ?? "",
      /no Kubernetes/,
    );
    assert.notDeepEqual(k8sManifestErrors({ kind: "Pod" }), []);
    assert.notDeepEqual(k8sManifestErrors("text"), []);
  });
});
