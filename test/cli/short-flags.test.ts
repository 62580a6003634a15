// kikx's short flags are accepted wherever their long form is (`-n --name`, `-i --image` and
// `-i --into`, `-r`, `-p`, `-t`, `-N`, `-H`, `-P`, `-S`, `-l`, `-s`, `-f`, `-d`), and the
// shortcut options take exactly what their fields take: a field's own format and bounds decide.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { cleanUp, ensureBuilt, kiln, tempDir, write } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

function succeeds(args: string[], cwd: string): string {
  const run = kiln(args, cwd);
  assert.equal(run.status, 0, `kiln ${args.join(" ")}: ${run.stderr}`);
  return run.stdout;
}

describe("short flags", () => {
  it("init, add, update, setup and apply take the short flags for their long options", () => {
    const dir = tempDir();
    succeeds(["init", "-n", "shop", "-d", "deploy", "-N", "prod"], dir);
    assert.equal(
      readFileSync(join(dir, "kiln.toml"), "utf8"),
      '[project]\nname = "shop"\ndefault_namespace = "prod"\noutput_dir = "deploy"\n',
    );
    succeeds(
      [
        "add",
        "k8s/deployment",
        "-n",
        "api",
        "-i",
        "nginx:1.27",
        "-r",
        "2",
        "-p",
        "8080",
        "-l",
        "tier=web",
      ],
      dir,
    );
    succeeds(
      ["add", "k8s/ingress", "-n", "api", "-H", "api.example.com", "-P", "/api", "-S", "api-svc"],
      dir,
    );
    succeeds(["update", "api", "-r", "3", "-s", "image=nginx:1.28", "-f"], dir);
    const deployment = readFileSync(join(dir, "deploy", "api-deployment.yaml"), "utf8");
    for (const line of [
      "replicas: 3",
      "image: nginx:1.28",
      "containerPort: 8080",
      "tier: web",
      "namespace: prod",
    ]) {
      assert.ok(deployment.includes(line), `${line} in\n${deployment}`);
    }
    const ingress = readFileSync(join(dir, "deploy", "api-ingress.yaml"), "utf8");
    for (const line of ["host: api.example.com", "path: /api", "name: api-svc"]) {
      assert.ok(ingress.includes(line), `${line} in\n${ingress}`);
    }
    succeeds(["apply", "single-server", "-i", "servers"], dir);
    assert.ok(readFileSync(join(dir, "servers", "site.yml"), "utf8").length > 0);
    const other = tempDir();
    write(other, "kiln.toml", '[project]\nname = "old"\n');
    succeeds(["setup", "k8s-web-app", "-f"], other);
    assert.doesNotMatch(readFileSync(join(other, "kiln.toml"), "utf8"), /name = "old"/);
  });
});

describe("shortcut options take what their fields take", () => {
  it("a port name where the field takes one; numbers out of the field's bounds fail with its message", () => {
    const named = kiln(["render", "k8s/service", "-n", "web", "-t", "http-web"], tempDir());
    assert.equal(named.status, 0, named.stderr);
    assert.match(named.stdout, /targetPort: http-web\n/);
    const replicas = kiln(
      ["render", "k8s/deployment", "-n", "web", "-i", "x", "--replicas", "3000000000"],
      tempDir(),
    );
    assert.equal(replicas.status, 1);
    assert.equal(
      replicas.stderr,
      'error: k8s/deployment: `replicas` must be a whole number from 0 to 2147483647, written in digits; got "3000000000"\n  replicas: Number of pods.\n',
    );
    const port = kiln(
      ["render", "k8s/deployment", "-n", "web", "-i", "x", "--port", "0"],
      tempDir(),
    );
    assert.equal(port.status, 1);
    assert.equal(
      port.stderr,
      'error: k8s/deployment: `port` must be a whole number from 1 to 65535 (a port number), written in digits; got "0"\n  port: Port the container listens on.\n',
    );
  });
});
