// kiln update merges YAML and INI files by their structure, from the real binary in temporary
// projects: the edit a platform engineer makes most (an `env:` block right under `image:`)
// merges with the update made most (`--image`), the merged manifest passes the strict
// Kubernetes schema, conflicts are named by key path, the user's comments and quoting stay, a
// multi-document file merges document by document, an inventory by group and host (checked by
// the real ansible-inventory), and a side taken says what it dropped.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parse, parseAllDocuments } from "yaml";
import { ansibleInventoryList, ansibleSkip } from "../tools/ansible.ts";
import { validateK8sManifest } from "../tools/k8s-schema.ts";
import {
  cleanUp,
  ensureBuilt,
  kiln,
  project,
  setUpProject,
  tempDir,
  tree,
  write,
  writeJson,
} from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

interface LockJson {
  components: {
    name: string;
    component: string;
    fields: Record<string, string>;
    files: { path: string; conflicted?: true }[];
  }[];
}
const lockOf = (dir: string) => JSON.parse(tree(dir)["kiln.lock"] as string) as LockJson;
const read = (dir: string, path: string) => tree(dir)[path] as string;

const API = "k8s/api-deployment.yaml";
const IMAGE_LINE = "          image: ghcr.io/example/api:1.0.0\n";
const ENV_BLOCK = "          env:\n            - name: LOG_LEVEL\n              value: debug\n";

/** A `k8s-web-app` project whose api deployment has an `env:` block right under `image:`. */
function webAppWithEnv(): string {
  const dir = setUpProject("k8s-web-app");
  const original = read(dir, API);
  assert.ok(original.includes(IMAGE_LINE), original);
  write(dir, API, original.replace(IMAGE_LINE, `${IMAGE_LINE}${ENV_BLOCK}`));
  return dir;
}

describe("kiln update merges YAML by structure", () => {
  it("an env block added under image merges with an image bump; the manifest passes the strict schema", () => {
    const dir = webAppWithEnv();
    const edited = read(dir, API);
    const run = kiln(["update", "api", "--image", "ghcr.io/example/api:2.4.0"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^merged {4}k8s\/api-deployment\.yaml$/m);
    const merged = read(dir, API);
    // exactly the user's file with the one value changed: every other byte as it was
    assert.equal(merged, edited.replace("api:1.0.0", "api:2.4.0"));
    validateK8sManifest(parse(merged));
    const entry = lockOf(dir).components.find(
      (c) => c.name === "api" && c.component === "k8s/deployment",
    );
    assert.equal(entry?.fields.image, "ghcr.io/example/api:2.4.0");
    assert.equal(entry?.files[0]?.conflicted, undefined);
  });

  it("both sides changing the same key is a conflict named by its key path; nothing is written", () => {
    const dir = webAppWithEnv();
    write(dir, API, read(dir, API).replace("api:1.0.0", "api:hand"));
    const before = tree(dir);
    const run = kiln(["update", "api", "--image", "ghcr.io/example/api:2.4.0"], dir);
    assert.equal(run.status, 1);
    assert.equal(
      run.stderr,
      "error: 1 conflict in 1 file - nothing was written\n" +
        "  k8s/api-deployment.yaml: spec.template.spec.containers[name=api].image: yours ghcr.io/example/api:hand, new ghcr.io/example/api:2.4.0\n" +
        "  run again with --conflicts=markers to write conflict markers, or --ours / --theirs to take one side; `kiln diff` shows the whole change\n",
    );
    assert.deepEqual(tree(dir), before);
  });

  it("--theirs prints the value it dropped at its key path, and --json records it", () => {
    const dir = webAppWithEnv();
    write(dir, API, read(dir, API).replace("api:1.0.0", "api:hand"));
    const json = kiln(
      ["update", "api", "--image", "ghcr.io/example/api:2.4.0", "--theirs", "--json"],
      tempCopy(dir),
    );
    assert.equal(json.status, 0, json.stderr);
    const files = (JSON.parse(json.stdout) as { files: Record<string, unknown>[] }).files;
    const file = files.find((f) => f.path === API);
    assert.deepEqual(file?.discarded, [
      {
        side: "yours",
        keyPath: "spec.template.spec.containers[name=api].image",
        text: "ghcr.io/example/api:hand\n",
      },
    ]);
    const run = kiln(["update", "api", "--image", "ghcr.io/example/api:2.4.0", "--theirs"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /^conflict {2}k8s\/api-deployment\.yaml {2}\(1 conflict settled with the new lines\)\n {4}dropped your spec\.template\.spec\.containers\[name=api\]\.image:\n {6}\| ghcr\.io\/example\/api:hand\n/m,
    );
    // the env block the user added is still there: only the conflicting value was settled
    assert.ok(read(dir, API).includes(`          image: ghcr.io/example/api:2.4.0\n${ENV_BLOCK}`));
  });

  it("--theirs on a file merged line by line prints the lines it dropped, at most 10 of them", () => {
    const dir = project();
    const template = `# notes\n${Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n")}\nend\n`;
    writeJson(dir, "items/note.json", {
      name: "note",
      category: "test",
      fields: [],
      files: [{ path: "{{ name }}.md", template }],
    });
    assert.equal(kiln(["add", "items/note.json", "--name", "n"], dir).status, 0);
    write(dir, "k8s/n.md", template.replace(/line (\d+)/g, "mine $1"));
    writeJson(dir, "items/note.json", {
      name: "note",
      category: "test",
      fields: [],
      files: [{ path: "{{ name }}.md", template: template.replace(/line (\d+)/g, "new $1") }],
    });
    const run = kiln(["update", "--theirs"], dir);
    assert.equal(run.status, 0, run.stderr);
    const shown = Array.from({ length: 10 }, (_, i) => `      | mine ${i + 1}\n`).join("");
    assert.equal(
      run.stdout,
      `conflict  k8s/n.md  (1 conflict settled with the new lines)\n    dropped your lines 2-13:\n${shown}      ... (2 more lines)\nupdated 1 component: 1 conflict - kiln.lock records the new state\n`,
    );
    assert.equal(read(dir, "k8s/n.md"), template.replace(/line (\d+)/g, "new $1"));
  });

  it("--conflicts=markers marks the smallest block and exits 1; status and diff --exit-code hold until resolved", () => {
    const dir = webAppWithEnv();
    write(dir, API, read(dir, API).replace("api:1.0.0", "api:hand"));
    const run = kiln(
      ["update", "api", "--image", "ghcr.io/example/api:2.4.0", "--conflicts=markers"],
      dir,
    );
    assert.equal(run.status, 1);
    assert.match(run.stdout, /^conflict {2}k8s\/api-deployment\.yaml {2}\(1 conflict: markers/m);
    assert.match(
      run.stderr,
      /^error: 1 conflict in 1 file written with markers - resolve them\n {2}k8s\/api-deployment\.yaml\n/,
    );
    assert.ok(
      read(dir, API).includes(
        "        - name: api\n<<<<<<< yours\n          image: ghcr.io/example/api:hand\n=======\n          image: ghcr.io/example/api:2.4.0\n>>>>>>> kiln update\n          env:\n",
      ),
      read(dir, API),
    );
    const deployment = lockOf(dir).components.find(
      (c) => c.component === "k8s/deployment" && c.name === "api",
    );
    assert.equal(deployment?.files[0]?.conflicted, true);
    assert.match(kiln(["status"], dir).stdout, /^ {2}conflicted k8s\/api-deployment\.yaml$/m);
    assert.equal(kiln(["diff", "--exit-code"], dir).status, 1);
    // resolved by hand: status and diff are clean again
    const resolved = read(dir, API).replace(
      /<<<<<<< yours\n.*\n=======\n(.*\n)>>>>>>> kiln update\n/,
      "$1",
    );
    write(dir, API, resolved);
    assert.doesNotMatch(kiln(["status"], dir).stdout, /conflicted/);
    assert.equal(kiln(["diff", "--exit-code"], dir).status, 0);
  });
});

/** A copy of a project folder, to run a second scenario from the same state. */
function tempCopy(dir: string): string {
  const copy = tempDir();
  for (const [path, content] of Object.entries(tree(dir))) {
    if (!path.endsWith("/")) write(copy, path, content);
  }
  return copy;
}

/** A file item writing one YAML file: two documents, a Deployment and its Service. */
const TWO_DOCS = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ name }}
spec:
  replicas: {{ replicas }}
  selector:
    matchLabels:
      app: {{ name }}
  template:
    metadata:
      labels:
        app: {{ name }}
    spec:
      containers:
        - name: {{ name }}
          image: "{{ image }}"
---
apiVersion: v1
kind: Service
metadata:
  name: {{ name }}
spec:
  selector:
    app: {{ name }}
  ports:
    - port: 80
      targetPort: 8080
`;

function twoDocProject(template: string): string {
  const dir = project();
  writeJson(dir, "items/app.json", {
    name: "app",
    category: "test",
    fields: [
      { name: "image", default: "nginx:1.27" },
      { name: "replicas", default: "2" },
    ],
    files: [{ path: "{{ name }}.yaml", template }],
  });
  const run = kiln(["add", "items/app.json", "--name", "web"], dir);
  assert.equal(run.status, 0, run.stderr);
  return dir;
}

describe("comments, quoting and several documents", () => {
  it("a multi-document file merges document by document; comments, quotes and blank lines stay", () => {
    const dir = twoDocProject(TWO_DOCS);
    const original = read(dir, "k8s/web.yaml");
    // the user: a comment, a single-quoted label, a blank line, and a port name in the Service
    const edited = original
      .replace("  replicas: 2\n", "  # scaled by the HPA later\n  replicas: 2\n")
      .replace("        app: web\n    spec:", "        app: web\n        team: 'core'\n\n    spec:")
      .replace(
        "      targetPort: 8080\n",
        "      targetPort: 8080 # the app's port\n      name: http\n",
      );
    write(dir, "k8s/web.yaml", edited);
    // upstream: the replicas (next to the comment) and the Service's target port (next to the name)
    writeJson(dir, "items/app.json", {
      name: "app",
      category: "test",
      fields: [
        { name: "image", default: "nginx:1.27" },
        { name: "replicas", default: "2" },
      ],
      files: [
        {
          path: "{{ name }}.yaml",
          template: TWO_DOCS.replace("targetPort: 8080", "targetPort: 9090"),
        },
      ],
    });
    const run = kiln(["update", "web", "--set", "replicas=5", "--image", "nginx:1.28"], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      read(dir, "k8s/web.yaml"),
      edited
        .replace("  replicas: 2\n", "  replicas: 5\n")
        .replace('"nginx:1.27"', '"nginx:1.28"')
        .replace("targetPort: 8080 # the app's port", "targetPort: 9090 # the app's port"),
    );
    for (const doc of parseAllDocuments(read(dir, "k8s/web.yaml"))) validateK8sManifest(doc.toJS());
  });

  it("a conflict inside the second document is named by its kind and name", () => {
    const dir = twoDocProject(TWO_DOCS);
    write(
      dir,
      "k8s/web.yaml",
      read(dir, "k8s/web.yaml").replace("targetPort: 8080", "targetPort: 8081"),
    );
    writeJson(dir, "items/app.json", {
      name: "app",
      category: "test",
      fields: [
        { name: "image", default: "nginx:1.27" },
        { name: "replicas", default: "2" },
      ],
      files: [
        {
          path: "{{ name }}.yaml",
          template: TWO_DOCS.replace("targetPort: 8080", "targetPort: 9090"),
        },
      ],
    });
    const run = kiln(["update", "web"], dir);
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /^ {2}k8s\/web\.yaml: Service\/web spec\.ports\[port=80\]\.targetPort: yours 8081, new 9090$/m,
    );
  });
});

describe("kiln update merges an inventory by group and host", { skip: ansibleSkip() }, () => {
  it("a host the user added and a group var changed upstream both land; ansible-inventory reads them", () => {
    const dir = tempDir();
    assert.equal(kiln(["setup", "multi-tier-platform"], dir).status, 0);
    const path = "infra/platform-inventory.ini";
    const original = read(dir, path);
    // the user: a third replica host, and a var of their own right under the one upstream changes
    const edited = original
      .replace(
        "db-3 cm_host=10.10.0.19 cm_user=deploy cm_port=22\n",
        "db-3 cm_host=10.10.0.19 cm_user=deploy cm_port=22\ndb-4 cm_host=10.10.0.40 cm_user=deploy cm_port=22\n",
      )
      .replace("postgres_version=16\n", "postgres_version=16\npostgres_port=5433\n");
    assert.notEqual(edited, original);
    write(dir, path, edited);
    const entry = lockOf(dir).components.find((c) => c.component === "automation/inventory");
    const hosts = (entry?.fields.hosts ?? "").replace(
      '"postgres_version": "16"',
      '"postgres_version": "17"',
    );
    assert.ok(hosts.includes('"postgres_version": "17"'), hosts);
    const run = kiln(["update", "platform", "--set", `hosts=${hosts}`], dir);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^merged {4}infra\/platform-inventory\.ini$/m);
    assert.equal(read(dir, path), edited.replace("postgres_version=16", "postgres_version=17"));
    const inventory = ansibleInventoryList(`${dir}/${path}`);
    assert.equal(inventory._meta.hostvars["db-4"]?.postgres_version, 17);
    assert.equal(inventory._meta.hostvars["db-4"]?.postgres_port, 5433);
    assert.equal(inventory._meta.hostvars["db-1"]?.postgres_version, 17);
  });
});
