// Rules about the Kubernetes manifests: a service must select some pods, an ingress must route
// to a service the project defines.
import type { ProjectFacts } from "../facts.ts";
import { aComponent, defineRule, type Issue, quote, type RuleContext } from "./rule.ts";

/** A service whose selector matches no pod template sends traffic nowhere. */
function serviceSelectsNothing(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const service of facts.services) {
    if (service.selects.length > 0) continue;
    const selectorText = Object.entries(service.selector)
      .map(([key, value]) => `${key}=${value}`)
      .join(", ");
    issues.push({
      message: `${context.who(service.component)} selects pods labelled ${selectorText} in namespace ${quote(service.namespace)}, and no deployment of the project has those labels - add ${aComponent(context, "deployment", "deployment")} named ${quote(service.name)} (same labels) or rename the service`,
      components: [service.component],
    });
  }
  return issues;
}

export const SERVICE_SELECTS_NOTHING = defineRule({
  id: "service-selects-nothing",
  severity: "warning",
  summary: "a service's selector matches no deployment",
  check: serviceSelectsNothing,
});

/** An ingress backend names a service in its own namespace; a missing one answers 503. */
function ingressMissingService(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const ingress of facts.ingresses) {
    if (ingress.backend !== undefined) continue;
    issues.push({
      message: `${context.who(ingress.component)} routes to service ${quote(ingress.service)} in namespace ${quote(ingress.namespace)}, which the project does not define - add ${aComponent(context, "service", "service")} named ${quote(ingress.service)} or change the ingress's service`,
      components: [ingress.component],
    });
  }
  return issues;
}

export const INGRESS_MISSING_SERVICE = defineRule({
  id: "ingress-missing-service",
  severity: "error",
  summary: "an ingress routes to a service the project does not define",
  check: ingressMissingService,
});
