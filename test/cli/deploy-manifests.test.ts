// kiln's own Kubernetes manifests (deploy/), made with kiln: the built binary renders the preset
// deploy/kiln.preset (items of @kiln and a built-in) into a temporary folder, and every manifest
// must pass the strict Kubernetes schemas, wire together (probes, ports, selectors, the
// autoscaler's target), give the service time to drain, and run it non-root on a read-only
// root filesystem. The committed deploy/ files must be exactly that render, so they never drift
// from the preset. The new @kiln Kubernetes items are also rendered on their own, with their
// examples and defaults and in their other variants, through the same schemas.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { validateK8sManifest } from "../tools/k8s-schema.ts";
import { cleanUp, ensureBuilt, kiln, REPO, tempDir, tree, writeJson } from "./helpers.ts";

const DEPLOY = join(REPO, "deploy");
const PRESET = join(DEPLOY, "kiln.preset");

/**
 * The service's drain on SIGTERM, by default: readiness turns 503 and the listener stays open for
 * the drain delay (so load balancers see the 503 first), then requests in flight get up to the
 * shutdown timeout. The pod must be given longer than both before it is killed.
 */
const DEFAULT_DRAIN_DELAY_SECONDS = 5;
const DEFAULT_SHUTDOWN_TIMEOUT_SECONDS = 25;

// biome-ignore lint/suspicious/noExplicitAny: the tests walk parsed manifests freely
type Manifest = any;

/** Every YAML document of `text`, parsed strictly (no error, no warning, no duplicate key). */
function yamlDocuments(text: string, path: string): Manifest[] {
  return parseAllDocuments(text, { uniqueKeys: true, prettyErrors: false }).map((document) => {
    assert.deepEqual(document.errors, [], `${path}: YAML errors`);
    assert.deepEqual(document.warnings, [], `${path}: YAML warnings`);
    return document.toJS();
  });
}

let rendered: Record<string, string>;
let manifests: Manifest[];

/** The one manifest of `kind` among the render's. */
function manifestOf(kind: string): Manifest {
  const found = manifests.filter((manifest) => manifest.kind === kind);
  assert.equal(found.length, 1, `one ${kind} in deploy/`);
  return found[0];
}

/** A container port by number or by its name, as a probe or a Service's targetPort names it. */
function containerPortNumber(container: Manifest, port: number | string): number | undefined {
  const ports = (container.ports ?? []) as { name?: string; containerPort: number }[];
  const match = ports.find((candidate) =>
    typeof port === "number" ? candidate.containerPort === port : candidate.name === port,
  );
  return match?.containerPort;
}

/** The seconds an option such as `--drain-delay 5s` sets in the container's command line, if any. */
function secondsOption(container: Manifest, option: string): number | undefined {
  const words = [...(container.command ?? []), ...(container.args ?? [])] as string[];
  const index = words.findIndex((word) => word === option || word.startsWith(`${option}=`));
  if (index < 0) return undefined;
  const word = words[index] as string;
  const value = word.includes("=") ? word.slice(word.indexOf("=") + 1) : words[index + 1];
  const match = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(value ?? "");
  assert.ok(match, `${option} ${value}: a duration in s or ms`);
  return match[2] === "ms" ? Number(match[1]) / 1000 : Number(match[1]);
}

before(() => {
  ensureBuilt();
  const dir = tempDir();
  const run = kiln(["apply", PRESET, "--into", "out"], dir);
  assert.equal(run.status, 0, run.stderr);
  rendered = tree(join(dir, "out"));
  manifests = Object.entries(rendered).flatMap(([path, text]) => yamlDocuments(text, path));
});
after(cleanUp);

describe("deploy/: kiln's Kubernetes manifests, rendered by kiln from deploy/kiln.preset", () => {
  it("the committed deploy/ files are exactly a fresh render of the preset, byte for byte", () => {
    // kubectl apply -f deploy/ reads every .json, .yaml and .yml file there as an object: the
    // preset, which is none, must have another name
    assert.doesNotMatch(PRESET, /\.(?:json|ya?ml)$/);
    const committed = Object.fromEntries(
      readdirSync(DEPLOY)
        .filter((name) => name !== "kiln.preset")
        .map((name) => [name, readFileSync(join(DEPLOY, name), "utf8")]),
    );
    assert.deepEqual(
      Object.keys(committed).sort(),
      Object.keys(rendered).sort(),
      "deploy/ holds the preset and the files it renders, nothing else: re-render with `kiln apply deploy/kiln.preset --into deploy --force`",
    );
    for (const [path, text] of Object.entries(rendered)) {
      assert.equal(
        committed[path],
        text,
        `deploy/${path} differs from the render: run kiln apply deploy/kiln.preset --into deploy --force`,
      );
    }
  });

  it("every manifest passes the strict Kubernetes schemas, and the set is a Deployment, Service, HorizontalPodAutoscaler, PodDisruptionBudget and NetworkPolicy", () => {
    for (const manifest of manifests) validateK8sManifest(manifest);
    assert.deepEqual(manifests.map((manifest) => manifest.kind).sort(), [
      "Deployment",
      "HorizontalPodAutoscaler",
      "NetworkPolicy",
      "PodDisruptionBudget",
      "Service",
    ]);
  });

  it("readiness is probed on /api/ready and liveness on /api/health, both on the container port the Service sends traffic to", () => {
    const deployment = manifestOf("Deployment");
    const service = manifestOf("Service");
    const [container] = deployment.spec.template.spec.containers;
    const { readinessProbe, livenessProbe } = container;
    assert.equal(readinessProbe.httpGet.path, "/api/ready");
    assert.equal(livenessProbe.httpGet.path, "/api/health");
    const servicePort = containerPortNumber(container, service.spec.ports[0].targetPort);
    assert.ok(
      servicePort,
      `the Service's targetPort ${service.spec.ports[0].targetPort} is a container port`,
    );
    assert.equal(containerPortNumber(container, readinessProbe.httpGet.port), servicePort);
    assert.equal(containerPortNumber(container, livenessProbe.httpGet.port), servicePort);
    assert.equal(manifestOf("NetworkPolicy").spec.ingress[0].ports[0].port, servicePort);
  });

  it("the pod is given longer to stop than the service's drain delay and shutdown timeout together", () => {
    const { spec } = manifestOf("Deployment").spec.template;
    const [container] = spec.containers;
    const drain = secondsOption(container, "--drain-delay") ?? DEFAULT_DRAIN_DELAY_SECONDS;
    const shutdown =
      secondsOption(container, "--shutdown-timeout") ?? DEFAULT_SHUTDOWN_TIMEOUT_SECONDS;
    assert.ok(
      spec.terminationGracePeriodSeconds > drain + shutdown,
      `terminationGracePeriodSeconds ${spec.terminationGracePeriodSeconds} > ${drain} + ${shutdown}`,
    );
  });

  it("the container runs as a non-root user on a read-only root filesystem, writing only to an in-memory /tmp", () => {
    const { spec } = manifestOf("Deployment").spec.template;
    const [container] = spec.containers;
    assert.equal(spec.securityContext.runAsNonRoot, true);
    assert.ok(spec.securityContext.runAsUser > 0);
    assert.equal(spec.automountServiceAccountToken, false);
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    assert.deepEqual(container.securityContext.capabilities.drop, ["ALL"]);
    assert.deepEqual(
      container.volumeMounts.map((mount: Manifest) => mount.mountPath),
      ["/tmp"],
    );
    assert.deepEqual(spec.volumes[0].emptyDir.medium, "Memory");
  });

  it("the Service, the budget and the policy select the Deployment's pods, and the autoscaler scales it by CPU against a CPU request", () => {
    const deployment = manifestOf("Deployment");
    const podLabels = deployment.spec.template.metadata.labels as Record<string, string>;
    const selects = (selector: Record<string, string>) =>
      Object.entries(selector).every(([key, value]) => podLabels[key] === value);
    assert.ok(selects(deployment.spec.selector.matchLabels));
    assert.ok(selects(manifestOf("Service").spec.selector));
    assert.ok(selects(manifestOf("PodDisruptionBudget").spec.selector.matchLabels));
    assert.ok(selects(manifestOf("NetworkPolicy").spec.podSelector.matchLabels));
    const autoscaler = manifestOf("HorizontalPodAutoscaler");
    assert.deepEqual(autoscaler.spec.scaleTargetRef, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: deployment.metadata.name,
    });
    assert.ok(autoscaler.spec.minReplicas >= 2, "two replicas at least: one can restart");
    assert.equal(autoscaler.spec.metrics[0].resource.name, "cpu");
    assert.ok(deployment.spec.template.spec.containers[0].resources.requests.cpu);
    // the autoscaler owns the count: a replicas line would be set back by every kubectl apply
    assert.equal(deployment.spec.replicas, undefined);
    // the budget leaves a replica serving at the autoscaler's floor
    assert.ok(manifestOf("PodDisruptionBudget").spec.maxUnavailable < autoscaler.spec.minReplicas);
  });

  it("the new @kiln Kubernetes items pass the strict schemas with their examples and defaults and in their other variants", () => {
    const item = (name: string) => join(REPO, "dist", "registries", "kiln", `${name}.json`);
    const dir = tempDir();
    writeJson(dir, "items.preset.json", {
      name: "kiln-k8s-items",
      components: [
        {
          reference: item("k8s-hardened-deployment"),
          name: "plain",
          fields: { image: "ghcr.io/example/api:1.0.0" },
        },
        {
          reference: item("k8s-hardened-deployment"),
          name: "scaled",
          fields: { image: "nginx:1.27", autoscaled: "true", env: '{"A": "1", "B_2": "yes"}' },
        },
        { reference: item("k8s-hpa"), name: "plain-hpa", fields: {} },
        { reference: item("k8s-pdb"), name: "plain-pdb", fields: {} },
        { reference: item("k8s-pdb"), name: "share-pdb", fields: { max_unavailable: "25%" } },
        ...["none", "dns-https", "any"].map((egress) => ({
          reference: item("k8s-networkpolicy"),
          name: `policy-${egress}`,
          fields: { egress, from_namespace: egress === "any" ? "ingress-nginx" : "" },
        })),
      ],
    });
    const run = kiln(["render", "./items.preset.json", "--json"], dir);
    assert.equal(run.status, 0, run.stderr);
    const files = (JSON.parse(run.stdout) as { files: { path: string; content: string }[] }).files;
    assert.equal(files.length, 8);
    const byPath = Object.fromEntries(
      files.map((file) => [file.path, yamlDocuments(file.content, file.path)[0]]),
    );
    for (const manifest of Object.values(byPath)) validateK8sManifest(manifest);
    assert.equal(byPath["plain-deployment.yaml"].spec.replicas, 2);
    assert.deepEqual(byPath["scaled-deployment.yaml"].spec.template.spec.containers[0].env, [
      { name: "A", value: "1" },
      { name: "B_2", value: "yes" },
    ]);
    assert.equal(byPath["share-pdb-pdb.yaml"].spec.maxUnavailable, "25%");
    assert.equal(byPath["plain-pdb-pdb.yaml"].spec.maxUnavailable, 1);
    // egress none: the Egress type with no rule denies every connection; any: no Egress type
    assert.deepEqual(byPath["policy-none-networkpolicy.yaml"].spec.egress, []);
    assert.deepEqual(byPath["policy-none-networkpolicy.yaml"].spec.policyTypes, [
      "Ingress",
      "Egress",
    ]);
    assert.equal(byPath["policy-dns-https-networkpolicy.yaml"].spec.egress.length, 2);
    assert.deepEqual(byPath["policy-any-networkpolicy.yaml"].spec.policyTypes, ["Ingress"]);
  });
});
