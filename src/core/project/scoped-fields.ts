// Which of the selected components a field a command sets applies to: only those whose item
// declares it. Every component takes `namespace`, and one whose item declares no fields at all
// takes any (as `kiln add` gives it any: its template reads what it is given). `kiln update api
// --image x` on a deployment, a service and an ingress named `api` sets the deployment's image
// and leaves the others alone, instead of recording an `image` no template of theirs reads. A
// field that none of them declares is an error naming each with its fields: it was mistyped or
// meant for another component, and writing it anywhere would hide that. Pure.
import { KilnError } from "../errors.ts";

/** The field every component takes, declared or not: the namespace it renders in. */
const ALWAYS_DECLARED = "namespace";

export interface FieldTarget {
  /** How the component is spelt to the user (`deployment/api`). */
  address: string;
  /** The field names its item declares; empty: it declares none, and takes any. */
  declared: readonly string[];
}

/**
 * For each target, the fields of `fields` it declares (in the targets' order). Throws when a
 * field is declared by none of them.
 */
export function scopeFields(
  targets: readonly FieldTarget[],
  fields: Readonly<Record<string, string>>,
): Record<string, string>[] {
  const declares = (target: FieldTarget, field: string) =>
    field === ALWAYS_DECLARED || target.declared.length === 0 || target.declared.includes(field);
  const orphans = Object.keys(fields).filter(
    (field) => !targets.some((target) => declares(target, field)),
  );
  if (orphans.length > 0) throw undeclaredFieldsError(targets, orphans);
  return targets.map((target) =>
    Object.fromEntries(Object.entries(fields).filter(([field]) => declares(target, field))),
  );
}

function undeclaredFieldsError(targets: readonly FieldTarget[], orphans: string[]): KilnError {
  const quoted = orphans.map((field) => `\`${field}\``).join(", ");
  const which = targets.map((target) => target.address).join(", ");
  return new KilnError(
    "invalid_request",
    `${orphans.length === 1 ? "field" : "fields"} ${quoted} ${orphans.length === 1 ? "is" : "are"} not declared by ${targets.length === 1 ? "" : "any of "}${which} - nothing was written`,
    targets.map((target) => `${target.address} declares: ${target.declared.join(", ")}`).join("\n"),
  );
}
