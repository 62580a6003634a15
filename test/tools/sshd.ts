// A real SSH server for tests that connect with the automation tool: Debian's openssh-server,
// started as a child process on a loopback address and a free, non-default port, with a host
// key, a user and a client key made for the test. Nothing outside a temporary folder is
// touched except the test user, created once (tests run as root in CI; elsewhere the test is
// skipped unless KILN_REQUIRE_TOOLS=1).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolsRequired } from "./ansible.ts";

const SSHD = "/usr/sbin/sshd";
/** The user the tests log in as; made once, with no password (key only). */
export const SSH_TEST_USER = "kiln-ssh-test";

/** Why a real SSH server cannot run here, or undefined when it can. */
export function sshdMissing(): string | undefined {
  if (!existsSync(SSHD)) return `${SSHD} is missing; install Debian's openssh-server`;
  if (spawnSync("ssh-keygen", ["-?"], { encoding: "utf8" }).error) {
    return "ssh-keygen is missing; install Debian's openssh-client";
  }
  if (process.getuid?.() !== 0) return "making the test user needs root";
  return undefined;
}

/** The `skip` option of a test that needs the server (see ansibleSkip). */
export function sshdSkip(): string | false {
  const reason = sshdMissing();
  return reason !== undefined && !toolsRequired() ? `skipped: ${reason}` : false;
}

export interface TestSshd {
  host: string;
  port: number;
  user: string;
  /** The client's private key file. */
  keyFile: string;
  /** A known_hosts file that holds the server's host key. */
  knownHosts: string;
  stop(): Promise<void>;
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: "utf8" });
  if (result.error || result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed: ${result.error?.message ?? result.stderr}`,
    );
  }
}

/** A port nobody listens on now (asked of the system, then released). */
async function freePort(host: string): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, host, resolve));
  const { port } = probe.address() as import("node:net").AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Resolves once something accepts connections on host:port, or rejects after `ms`. */
async function waitForPort(host: string, port: number, ms: number, child: ChildProcess) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host, port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`sshd did not listen on ${host}:${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Makes the test user once (a home, so the automation tool has somewhere to put its files). */
function ensureUser(): void {
  const known = spawnSync("getent", ["passwd", SSH_TEST_USER], { encoding: "utf8" });
  if (known.status !== 0) run("useradd", ["--create-home", "--shell", "/bin/sh", SSH_TEST_USER]);
  // no password, but not locked either: sshd refuses locked accounts (`!`) even for keys
  run("usermod", ["--password", "*", SSH_TEST_USER]);
}

/** Starts sshd on 127.0.0.1 and a free port; the caller stops it. */
export async function startSshd(): Promise<TestSshd> {
  const missing = sshdMissing();
  if (missing !== undefined) throw new Error(`cannot start a test SSH server: ${missing}`);
  const folder = mkdtempSync(join(tmpdir(), "kiln-sshd-"));
  chmodSync(folder, 0o755);
  const host = "127.0.0.1";
  const port = await freePort(host);
  const hostKey = join(folder, "host_ed25519");
  const keyFile = join(folder, "client_ed25519");
  run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey]);
  run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", keyFile]);
  ensureUser();
  const authorized = join(folder, "authorized_keys");
  writeFileSync(authorized, readFileSync(`${keyFile}.pub`));
  chmodSync(authorized, 0o644);
  // sshd insists on its privilege-separation folder
  mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  const config = join(folder, "sshd_config");
  writeFileSync(
    config,
    [
      `ListenAddress ${host}`,
      `Port ${port}`,
      `HostKey ${hostKey}`,
      `PidFile ${join(folder, "sshd.pid")}`,
      `AuthorizedKeysFile ${authorized}`,
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PubkeyAuthentication yes",
      "PermitRootLogin no",
      `AllowUsers ${SSH_TEST_USER}`,
      "UsePAM no",
      "StrictModes no",
      "LogLevel ERROR",
      "",
    ].join("\n"),
  );
  const knownHosts = join(folder, "known_hosts");
  const publicHostKey = readFileSync(`${hostKey}.pub`, "utf8").trim().split(" ");
  writeFileSync(knownHosts, `[${host}]:${port} ${publicHostKey[0]} ${publicHostKey[1]}\n`);
  const child = spawn(SSHD, ["-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    log += chunk.toString();
  });
  try {
    await waitForPort(host, port, 10_000, child);
  } catch (error) {
    child.kill();
    throw new Error(`${(error as Error).message}: ${log}`);
  }
  return {
    host,
    port,
    user: SSH_TEST_USER,
    keyFile,
    knownHosts,
    stop: () =>
      new Promise((resolve) => {
        // the automation tool keeps its SSH connection open for 60 s after its last use
        // (ControlPersist), and that connection's sshd process outlives the server holding the
        // server's stderr: without closing this end, the pipe kept the test file's process
        // alive for that minute after its last test
        const closePipe = () => {
          child.stderr?.destroy();
          resolve();
        };
        if (child.exitCode !== null) return closePipe();
        child.once("exit", closePipe);
        child.kill("SIGTERM");
      }),
  };
}
