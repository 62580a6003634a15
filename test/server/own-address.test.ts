// The service's own address, in every spelling (issue 19): an IPv4-mapped IPv6 URL
// (`[::ffff:127.0.0.1]`, `[::ffff:7f00:1]`, `[0:0:0:0:0:ffff:127.0.0.1]`) reaches the service
// as surely as 127.0.0.1 does, so a fetch of it - first or after a redirect - is refused as the
// service's own address, for a service bound on 127.0.0.1 and for one bound on
// ::ffff:127.0.0.1; and a bind on ::ffff:127.0.0.1 is a loopback bind, so the Host guard
// stays on. src/server/addresses.ts compares the addresses.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, test } from "node:test";
import {
  alwaysThisMachine,
  canonicalAddress,
  isLoopbackAddress,
} from "../../src/server/addresses.ts";
import { HostGuard, isLoopbackBind } from "../../src/server/host-guard.ts";
import type { RunningServer } from "../../src/server/server.ts";
import { raw, startFixtureServer } from "./helpers.ts";

/** Spellings of 127.0.0.1 as a URL host. */
const MAPPED_HOSTS = ["[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:127.0.0.1]"];

const inspect = (base: string, ref: string) =>
  raw(base, { path: `/api/registry/inspect?ref=${encodeURIComponent(ref)}` });

/** The refusal of a fetch of the service's own port, as the API answers it. */
function ownAddressRefusal(reference: string, port: string) {
  return {
    code: "invalid_request",
    error: `failed to fetch registry item from ${reference}`,
    detail: `[::ffff:7f00:1]:${port} is this service's own address - the service does not fetch from itself`,
  };
}

/** A local server that redirects every request to `location()`; counts what it was asked. */
async function redirector(location: () => string) {
  let asked = 0;
  const server = createServer((_req, res) => {
    asked += 1;
    res.writeHead(302, { location: location() });
    res.end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked: () => asked,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Every mapped spelling of the service's port is refused, directly and after a redirect. */
async function refusesMappedSpellings(service: RunningServer): Promise<void> {
  const { port } = new URL(service.url);
  for (const host of MAPPED_HOSTS) {
    const own = `http://${host}:${port}/x.json`;
    const direct = await inspect(service.url, own);
    assert.equal(direct.status, 400, `${own}: ${direct.body}`);
    assert.deepEqual(JSON.parse(direct.body), ownAddressRefusal(own, port), own);

    // a redirect back to the service's own inspect endpoint, which would fetch the redirector
    // again (a loop holding every fetch slot, once the Host guard lets the request in)
    let first = "";
    const attacker = await redirector(
      () => `http://${host}:${port}/api/registry/inspect?ref=${encodeURIComponent(first)}`,
    );
    first = `${attacker.url}/item.json`;
    try {
      const redirected = await inspect(service.url, first);
      assert.equal(redirected.status, 400, redirected.body);
      assert.deepEqual(JSON.parse(redirected.body), ownAddressRefusal(first, port), host);
      assert.equal(attacker.asked(), 1, "the redirector was asked once, the service never");
    } finally {
      await attacker.close();
    }
  }
}

describe("the service's own address in IPv4-mapped IPv6 spellings", () => {
  test("bound on 127.0.0.1: fetches of [::ffff:127.0.0.1], [::ffff:7f00:1], [0:0:0:0:0:ffff:127.0.0.1] are refused", async () => {
    const service = await startFixtureServer();
    try {
      await refusesMappedSpellings(service);
    } finally {
      await service.close();
    }
  });

  test("bound on ::ffff:127.0.0.1: the same refusals, and the Host guard stays on", async () => {
    const service = await startFixtureServer({ bind: "::ffff:127.0.0.1" });
    try {
      await refusesMappedSpellings(service);
      const { port } = new URL(service.url);
      const refused = await raw(service.url, {
        path: "/api/health",
        headers: { host: `evil.example:${port}` },
      });
      assert.equal(refused.status, 403, "a rebinding page's Host is refused");
      assert.match(refused.body, /^Forbidden: host `evil\.example:\d+` is not allowed/);
      // the service's own spellings of 127.0.0.1 are still the loopback names
      for (const host of [`[::ffff:7f00:1]:${port}`, `[::ffff:127.0.0.1]:${port}`, "127.0.0.1"]) {
        const allowed = await raw(service.url, { path: "/api/health", headers: { host } });
        assert.equal(allowed.status, 200, host);
      }
    } finally {
      await service.close();
    }
  });
});

describe("addresses compared by what they mean", () => {
  test("spellings of one address have one canonical form", () => {
    const cases: [spelling: string, canonical: string | undefined][] = [
      ["127.0.0.1", "127.0.0.1"],
      ["::ffff:127.0.0.1", "127.0.0.1"],
      ["[::ffff:7f00:1]", "127.0.0.1"],
      ["::FFFF:7F00:0001", "127.0.0.1"],
      ["0:0:0:0:0:ffff:127.0.0.1", "127.0.0.1"],
      ["0000:0000:0000:0000:0000:ffff:7f00:0001", "127.0.0.1"],
      ["::ffff:0:0", "0.0.0.0"],
      ["0:0:0:0:0:0:0:1", "::1"],
      ["[0::1]", "::1"],
      ["fe80::1%eth0", "fe80::1"],
      ["::7f00:1", "::7f00:1"], // IPv4-compatible: not routed to 127.0.0.1
      ["localhost", undefined],
      ["127.1", undefined], // not an address to node:net; the URL parser makes it 127.0.0.1
    ];
    for (const [spelling, canonical] of cases) {
      assert.equal(canonicalAddress(spelling), canonical, spelling);
    }
  });

  test("the URL parser has already normalised decimal, octal, hex and short IPv4", () => {
    for (const host of ["2130706433", "0x7f.1", "0177.0.0.1", "127.1", "0x7f000001"]) {
      assert.equal(new URL(`http://${host}:4000/`).hostname, "127.0.0.1", host);
    }
    assert.equal(new URL("http://0:4000/").hostname, "0.0.0.0");
  });

  test("loopback and this machine in every spelling; binds likewise", () => {
    for (const address of ["127.0.0.2", "::ffff:127.0.0.2", "[::ffff:7f00:1]", "0:0::1"]) {
      assert.equal(isLoopbackAddress(address), true, address);
      assert.equal(alwaysThisMachine(address), true, address);
    }
    for (const address of ["0.0.0.0", "::", "::ffff:0.0.0.0", "0:0:0:0:0:0:0:0"]) {
      assert.equal(isLoopbackAddress(address), false, address);
      assert.equal(alwaysThisMachine(address), true, address);
    }
    for (const address of ["10.0.0.1", "::ffff:10.0.0.1", "::7f00:1", "fd00::2", "example.com"]) {
      assert.equal(alwaysThisMachine(address), false, address);
    }
    for (const bind of ["::ffff:127.0.0.1", "[::ffff:7f00:1]", "0:0:0:0:0:ffff:127.0.0.1"]) {
      assert.equal(isLoopbackBind(bind), true, bind);
      assert.equal(new HostGuard(bind, []).check("evil.com", undefined)?.status, 403, bind);
    }
    // a Host naming the loopback addresses in another spelling is the same name
    const guard = new HostGuard("127.0.0.1", ["[::ffff:a00:1]"]);
    for (const host of ["[::ffff:127.0.0.1]:4000", "[0:0:0:0:0:0:0:1]", "[::ffff:10.0.0.1]"]) {
      assert.equal(guard.check(host, undefined), undefined, host);
    }
    assert.equal(guard.check("[::ffff:127.0.0.2]", undefined)?.status, 403);
  });
});
