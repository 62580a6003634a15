// Rules about the Kubernetes manifests: a service must select some pods and forward to a port
// they have, an ingress must route to a service the project defines.
import type { ProjectFacts } from "../facts.ts";
import {
  aComponent,
  defineRule,
  type FindingParams,
  type Issue,
  quote,
  type RuleContext,
} from "./rule.ts";

/** service-selects-nothing's parts: the service, its selector (`key=value`s), namespace and name. */
function serviceSelectsNothingParams(
  context: RuleContext,
  index: number,
  selector: Readonly<Record<string, string>>,
  namespace: string,
  service: string,
): FindingParams {
  const labels = Object.entries(selector).map(([key, value]) => `${key}=${value}`);
  return { component: context.named(index), selector: labels, namespace, service };
}

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
      params: serviceSelectsNothingParams(
        context,
        service.component,
        service.selector,
        service.namespace,
        service.name,
      ),
    });
  }
  return issues;
}

export const SERVICE_SELECTS_NOTHING = defineRule({
  id: "service-selects-nothing",
  severity: "warning",
  summary: "a service's selector matches no deployment",
  fix: "make the service's selector match a deployment's labels (by default `app: <deployment name>`), or add the deployment it should select",
  check: serviceSelectsNothing,
});

/** ingress-missing-service's parts: the ingress, the service it routes to and the namespace. */
function ingressMissingServiceParams(
  context: RuleContext,
  index: number,
  service: string,
  namespace: string,
): FindingParams {
  return { component: context.named(index), service, namespace };
}

/** An ingress backend names a service in its own namespace; a missing one answers 503. */
function ingressMissingService(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const ingress of facts.ingresses) {
    if (ingress.backend !== undefined) continue;
    issues.push({
      message: `${context.who(ingress.component)} routes to service ${quote(ingress.service)} in namespace ${quote(ingress.namespace)}, which the project does not define - add ${aComponent(context, "service", "service")} named ${quote(ingress.service)} or change the ingress's service`,
      components: [ingress.component],
      params: ingressMissingServiceParams(
        context,
        ingress.component,
        ingress.service,
        ingress.namespace,
      ),
    });
  }
  return issues;
}

export const INGRESS_MISSING_SERVICE = defineRule({
  id: "ingress-missing-service",
  severity: "error",
  summary: "an ingress routes to a service the project does not define",
  fix: "add a k8s/service with the name the ingress routes to, or set the ingress's service field to a service the project defines",
  check: ingressMissingService,
});

/**
 * service-target-port's parts: the service, its target port, the deployments it selects and
 * their ports and port names; the variant `name` when the target is a port name.
 */
function serviceTargetPortParams(
  context: RuleContext,
  index: number,
  target: string,
  isNumber: boolean,
  deployments: readonly { component: number; port?: string | undefined; portNames: string[] }[],
): FindingParams {
  const ports = deployments.flatMap((deployment) =>
    [deployment.port, ...deployment.portNames].filter((port) => port !== undefined),
  );
  const shared = {
    component: context.named(index),
    target,
    deployments: deployments.map((deployment) => context.named(deployment.component)),
    ports: [...new Set(ports)],
  };
  return isNumber ? shared : { ...shared, variant: "name" };
}

/**
 * A service forwards to its target port on the pods it selects: a number must be a container
 * port of a deployment it selects, a name one of its port names - else traffic goes nowhere
 * (as after `kiln update deployment/api --port 9090` with the service still at 8080). A
 * deployment whose item declares no port is not judged.
 */
function serviceTargetPort(facts: ProjectFacts, context: RuleContext): Issue[] {
  const issues: Issue[] = [];
  for (const service of facts.services) {
    const target = service.targetPort?.trim();
    if (target === undefined || target === "") continue;
    const selected = facts.deployments.filter(
      (deployment) =>
        service.selects.includes(deployment.component) &&
        (deployment.port !== undefined || deployment.portNames.length > 0),
    );
    if (selected.length === 0) continue;
    const isNumber = /^[0-9]+$/.test(target);
    const matches = selected.some((deployment) =>
      isNumber
        ? deployment.port !== undefined && Number(deployment.port) === Number(target)
        : deployment.portNames.includes(target),
    );
    if (matches) continue;
    const ports = selected
      .map((deployment) => {
        const known = [deployment.port, ...deployment.portNames].filter(
          (port): port is string => port !== undefined,
        );
        return `${context.who(deployment.component)} (${known.join(", ")})`;
      })
      .join(", ");
    issues.push({
      message: `${context.who(service.component)} sends traffic to target port ${quote(target)}, which is ${isNumber ? "not a container port" : "not a port name"} of the deployment it selects: ${ports} - set the service's target_port to the container port, or the deployment's port to ${quote(target)}`,
      components: [service.component, ...selected.map((deployment) => deployment.component)],
      params: serviceTargetPortParams(context, service.component, target, isNumber, selected),
    });
  }
  return issues;
}

export const SERVICE_TARGET_PORT = defineRule({
  id: "service-target-port",
  severity: "warning",
  summary:
    "a service's target port is neither a port number nor a port name of the deployment it selects",
  fix: "set the service's target port to a port number or port name the selected deployment's container declares",
  check: serviceTargetPort,
});
