// Values Kubernetes and the automation tools would refuse are refused before anything is
// rendered, with the field's own message: an Ingress path that is not absolute, a host address
// that is no address, a CIDR written with host bits set (the message names the network).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { cleanUp, ensureBuilt, itemFile, kiln, tempDir } from "./helpers.ts";

before(() => ensureBuilt());
after(cleanUp);

describe("values the tools would refuse", () => {
  it("an ingress path, a host address and a CIDR with host bits set are refused (exit 1)", () => {
    const dir = tempDir();
    const path = kiln(["render", "k8s/ingress", "-n", "web", "-P", "nopath"], dir);
    assert.equal(path.status, 1);
    assert.match(
      path.stderr,
      /^error: k8s\/ingress: `path` must be an absolute path, starting with `\/` \(an Ingress path of pathType Prefix or Exact, such as \/api\); got "nopath"\n/,
    );
    const hosts = JSON.stringify([
      { group: "web", members: [{ name: "web-1", cm_host: "10.0.0.999" }] },
    ]);
    const host = kiln(
      ["render", "automation/inventory", "-n", "hosts", "-s", `hosts=${hosts}`],
      dir,
    );
    assert.equal(host.status, 1);
    assert.match(
      host.stderr,
      /^error: automation\/inventory: `hosts\[0\]\.members\[0\]\.cm_host` must be a host address: .*; got "10\.0\.0\.999"\n/,
    );
    itemFile(
      dir,
      "net.json",
      [{ path: "net.txt", template: "{{ subnet }}" }],
      [{ name: "subnet", format: "cidr" }],
    );
    const cidr = kiln(["render", "./net.json", "-n", "net", "-s", "subnet=10.0.0.5/24"], dir);
    assert.equal(cidr.status, 1);
    assert.match(
      cidr.stderr,
      /^error: test\/thing: `subnet` must name each range by its network address, with no host bits set: `10\.0\.0\.5\/24` is in the range `10\.0\.0\.0\/24` - write `10\.0\.0\.0\/24`\n/,
    );
  });
});
