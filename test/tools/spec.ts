// Facts of the specification that several tests pin, written once.
import assert from "node:assert/strict";
import { KilnError } from "../../src/core/errors.ts";

/** The 13 built-in components in the spec's registry order (decisions section 2). */
export const SPEC_COMPONENT_ORDER = [
  "k8s/deployment",
  "k8s/service",
  "k8s/ingress",
  "infra/cloud-a",
  "infra/cloud-b",
  "automation/k8s-bootstrap",
  "automation/inventory",
  "automation/group-vars",
  "automation/common-role",
  "automation/role",
  "automation/playbook",
  "automation/site",
  "automation/config",
] as const;

/** Runs `fn`, which must throw a KilnError, and returns it for assertions on its text. */
export function kilnErrorFrom(fn: () => unknown): KilnError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof KilnError, `expected a KilnError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected a KilnError");
}
