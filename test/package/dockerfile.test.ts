// The container image's recipe (Dockerfile), read with dockerfile-ast (the parser of the Docker
// language server) and checked against the package it packs: the Node major of package.json's
// engines, a production-only install, every path the package ships, the command `kiln` runs as,
// a non-root user, the health check on readiness, the port, the bind setting the service reads,
// and the one writable folder that deploy/'s manifests mount. No container engine is on the test
// machines, so the image is never built here; what can run without one does: the health check's
// own command against a small server, and the built service with the image's environment.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import {
  type Copy,
  DockerfileParser,
  type Env,
  type From,
  type Healthcheck,
  type Instruction,
  type JSONInstruction,
} from "dockerfile-ast";
import { validate } from "dockerfile-utils";
import semver from "semver";
import { parseDocument } from "yaml";
import { BIN, cleanEnv, cleanUp, ensureBuilt, REPO, tempDir } from "../cli/helpers.ts";

const TEXT = readFileSync(join(REPO, "Dockerfile"), "utf8");
const DOCKERFILE = DockerfileParser.parse(TEXT);
const PACKAGE = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  engines: { node: string };
  bin: { kiln: string };
  files: string[];
};

/** One build stage: its FROM and the instructions up to the next FROM. */
interface Stage {
  from: From;
  instructions: Instruction[];
}

function stagesOf(): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of DOCKERFILE.getInstructions()) {
    if (instruction.getKeyword() === "FROM") {
      stages.push({ from: instruction as From, instructions: [] });
    } else {
      assert.ok(stages.length > 0, `${instruction.getKeyword()} before the first FROM`);
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

const STAGES = stagesOf();
const RUNTIME = STAGES.at(-1) as Stage;

/** The runtime stage's instructions of one keyword. */
function runtime(keyword: string): Instruction[] {
  return RUNTIME.instructions.filter((instruction) => instruction.getKeyword() === keyword);
}

/** The one runtime instruction of `keyword` (a second one would silently win over the first). */
function onlyRuntime(keyword: string): Instruction {
  const found = runtime(keyword);
  assert.equal(found.length, 1, `one ${keyword} in the runtime stage`);
  return found[0] as Instruction;
}

/** The environment the runtime stage sets: ENV name=value pairs, later ones winning. */
function runtimeEnvironment(): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const instruction of runtime("ENV")) {
    for (const property of (instruction as Env).getProperties()) {
      environment[property.getName()] = property.getUnescapedValue() ?? "";
    }
  }
  return environment;
}

/**
 * The shell commands of the stage's RUN instructions, split at `&&` and `;`: the words of each.
 * A RUN's arguments are the shell's words as the parser splits them.
 */
function runCommands(stage: Stage): string[][] {
  return stage.instructions
    .filter((instruction) => instruction.getKeyword() === "RUN")
    .flatMap((instruction) => {
      const commands: string[][] = [[]];
      for (const word of instruction.getArguments().map((argument) => argument.getValue())) {
        if (word === "&&" || word === ";") commands.push([]);
        else commands.at(-1)?.push(word);
      }
      return commands.filter((command) => command.length > 0);
    });
}

/**
 * The exec-form argument list that follows HEALTHCHECK's CMD. dockerfile-ast parses the JSON form
 * of CMD but gives HEALTHCHECK's command as shell words, so the text after `CMD` (found by the
 * parser's ranges) is read here as the JSON array Docker reads.
 */
function healthcheckCommand(): string[] {
  const healthcheck = onlyRuntime("HEALTHCHECK") as Healthcheck;
  const subcommand = healthcheck.getSubcommand();
  assert.equal(subcommand?.getValue(), "CMD");
  const lines = TEXT.split("\n");
  const start = subcommand?.getRange().end as { line: number; character: number };
  const end = healthcheck.getRange().end;
  const rest = [
    (lines[start.line] as string).slice(start.character),
    ...lines.slice(start.line + 1, end.line + 1),
  ].join("\n");
  return JSON.parse(rest.slice(0, rest.lastIndexOf("]") + 1)) as string[];
}

/** The port the image exposes. */
function exposedPort(): number {
  const [port] = onlyRuntime("EXPOSE")
    .getArguments()
    .map((argument) => argument.getValue());
  assert.match(port ?? "", /^\d+$/);
  return Number(port);
}

/** deploy/'s Deployment, parsed: the manifests the image runs under in a cluster. */
function deployedContainer() {
  const text = readFileSync(join(REPO, "deploy", "kiln-deployment.yaml"), "utf8");
  // biome-ignore lint/suspicious/noExplicitAny: the test walks the parsed manifest freely
  const deployment = parseDocument(text).toJS() as any;
  return {
    pod: deployment.spec.template.spec,
    container: deployment.spec.template.spec.containers[0],
  };
}

/** Runs `argv` without blocking this process (a server in it answers), with `env` added. */
function runAsync(argv: string[], env: Record<string, string>): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(argv[0] as string, argv.slice(1), {
      env: cleanEnv(env),
      stdio: "ignore",
    });
    child.on("close", (status) => resolve(status));
  });
}

/** A stand-in for the service's readiness route: `status` on /api/ready, 404 elsewhere. */
async function readinessServer(status: number): Promise<Server> {
  const server = createServer((request, response) => {
    response.statusCode = request.url === "/api/ready" ? status : 404;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

const portOf = (server: Server) => String((server.address() as AddressInfo).port);

let ready: Server;
let draining: Server;

before(async () => {
  ensureBuilt();
  [ready, draining] = await Promise.all([readinessServer(200), readinessServer(503)]);
});
after(async () => {
  cleanUp();
  await Promise.all([ready, draining].map((server) => new Promise((done) => server.close(done))));
});

describe("Dockerfile: kiln's container image, checked against the package", () => {
  it("parses with no problem dockerfile-utils' validator reports", () => {
    assert.deepEqual(
      validate(TEXT).map((problem) => `line ${problem.range.start.line + 1}: ${problem.message}`),
      [],
    );
  });

  it("every stage starts from the official Node image of the major version package.json's engines names", () => {
    const major = semver.minVersion(PACKAGE.engines.node)?.major;
    assert.ok(STAGES.length >= 2, "a build stage and a runtime stage");
    for (const { from } of STAGES) {
      assert.equal(from.getImageName(), "node");
      assert.match(from.getImageTag() ?? "", new RegExp(`^${major}(?:-|$)`));
    }
  });

  it("the runtime stage installs the production dependencies alone (npm ci --omit=dev) and copies in every path the package ships from the build stage", () => {
    const installs = runCommands(RUNTIME).filter(
      ([tool, command]) => tool === "npm" && ["ci", "install", "i"].includes(command as string),
    );
    assert.ok(installs.length > 0, "the runtime stage installs the dependencies");
    for (const install of installs) {
      assert.deepEqual(install.slice(0, 3), ["npm", "ci", "--omit=dev"], install.join(" "));
    }
    const build = STAGES[0] as Stage;
    assert.ok(
      runCommands(build).some((command) => command.join(" ") === "npm run build"),
      "the build stage runs npm run build",
    );
    const stageName = build.from.getBuildStage();
    const copied = runtime("COPY")
      .map((instruction) => instruction as Copy)
      .filter((copy) => copy.getFromFlag()?.getValue() === stageName)
      .map((copy) => copy.getArguments().map((argument) => argument.getValue()));
    for (const path of PACKAGE.files) {
      assert.ok(
        copied.some(([source, target]) => source === `/app/${path}` && target === `./${path}`),
        `the runtime stage copies ${path} (package.json's files) from the build stage`,
      );
    }
  });

  it("runs as a numeric user that is not root, so Kubernetes' runAsNonRoot can check it, and the one deploy/ runs", () => {
    const [user] = onlyRuntime("USER")
      .getArguments()
      .map((argument) => argument.getValue());
    const match = /^(\d+)(?::(\d+))?$/.exec(user ?? "");
    assert.ok(match, `USER ${user}: a numeric uid[:gid]`);
    assert.notEqual(Number(match[1]), 0);
    assert.equal(deployedContainer().pod.securityContext.runAsUser, Number(match[1]));
    // nothing after USER runs as root again
    const keywords = RUNTIME.instructions.map((instruction) => instruction.getKeyword());
    assert.ok(!keywords.slice(keywords.indexOf("USER")).includes("RUN"));
  });

  it("starts the package's kiln binary with serve, and listens on every interface through SERVICE_BIND", () => {
    const command = (onlyRuntime("CMD") as JSONInstruction)
      .getJSONStrings()
      .map((argument) => argument.getJSONValue());
    assert.deepEqual(command, ["node", PACKAGE.bin.kiln, "serve"]);
    assert.equal(runtime("ENTRYPOINT").length, 0);
    const environment = runtimeEnvironment();
    assert.equal(environment.SERVICE_BIND, "0.0.0.0");
    // the variable is the documented setting of the bind address
    const httpApi = readFileSync(join(REPO, "docs", "http-api.md"), "utf8");
    assert.match(httpApi, /^\| `--bind <address>` \| `SERVICE_BIND` \|/m);
  });

  it("exposes the port the service listens on, the port the health check asks and the container port deploy/ names", () => {
    const port = exposedPort();
    assert.equal(runtimeEnvironment().SERVICE_PORT, String(port));
    const script = healthcheckCommand().join(" ");
    assert.match(script, new RegExp(`process\\.env\\.SERVICE_PORT \\|\\| ${port}\\b`));
    assert.deepEqual(
      deployedContainer().container.ports.map(
        (entry: { containerPort: number }) => entry.containerPort,
      ),
      [port],
    );
  });

  it("keeps its writes in /tmp, the folder deploy/ mounts in memory under a read-only root filesystem", () => {
    const { container } = deployedContainer();
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    const [tmp] = container.volumeMounts.map((mount: { mountPath: string }) => mount.mountPath);
    assert.equal(tmp, "/tmp");
    assert.ok(runtimeEnvironment().XDG_CACHE_HOME?.startsWith(`${tmp}/`), "kiln's cache in /tmp");
  });

  it("the health check's command exits 0 while /api/ready answers 200, and 1 while it answers 503 or nothing listens", async () => {
    const command = healthcheckCommand();
    assert.equal(command[0], "node");
    assert.match(command.join(" "), /\/api\/ready/);
    const argv = [process.execPath, ...command.slice(1)];
    // a port nothing listens on: one a server had, closed again
    const gone = await readinessServer(200);
    const gonePort = portOf(gone);
    await new Promise((done) => gone.close(done));
    const statuses = await Promise.all(
      [portOf(ready), portOf(draining), gonePort].map((port) =>
        runAsync(argv, { SERVICE_PORT: port }),
      ),
    );
    assert.deepEqual(statuses, [0, 1, 1]);
  });

  it("the built service started with the image's environment listens on 0.0.0.0 and stops with status 0 on SIGTERM", async () => {
    // the image's environment, but a free port: 4000 may be taken on a shared machine
    const environment = {
      ...runtimeEnvironment(),
      SERVICE_PORT: "0",
      XDG_CACHE_HOME: join(tempDir(), "cache"),
      // no load balancer to tell: stop without the 5 s grace before the listener closes
      SERVICE_DRAIN_DELAY_SECONDS: "0",
    };
    const child = spawn(process.execPath, [BIN, "serve"], {
      env: cleanEnv(environment),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      const first = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
      const line = String(first.value);
      const port = /^kiln listening on http:\/\/0\.0\.0\.0:(\d+)$/.exec(line)?.[1];
      assert.ok(port, line);
      // bound to every interface, loopback reaches it too
      const health = await fetch(`http://127.0.0.1:${port}/api/health`);
      assert.equal(health.status, 200);
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
    } finally {
      // a failed check above must not leave the service running (the test would never end)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });

  it("the build context leaves out what was installed or built here, and the history", () => {
    const ignored = readFileSync(join(REPO, ".dockerignore"), "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"));
    for (const path of ["node_modules", "dist", ".git"]) assert.ok(ignored.includes(path), path);
  });
});
