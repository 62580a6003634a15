// A check finding in the dashboard's words: built from the finding's rule id and params (the
// catalogues' `finding.<rule id>`), in English and in French, never from the core's English
// message. The findings come from the core's real checks of small projects.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { toItemMetaView } from "../../src/core/item.ts";
import { checkProject } from "../../src/core/project/checks/check-project.ts";
import type { CheckComponent } from "../../src/core/project/facts.ts";
import { builtinRegistry } from "../../src/node/builtin-registry.ts";
import { chooseLanguage } from "../../web/src/i18n/i18n.ts";
import { findingMessage } from "../../web/src/model/finding-words.ts";

const catalogue = builtinRegistry().items.map(toItemMetaView);

function component(
  reference: string,
  name: string,
  fields: Record<string, string> = {},
): CheckComponent {
  return { reference, name, fields, labels: {} };
}

/**
 * A project with findings of several rules and forms: a play aimed at an unknown group (with
 * the inventory's groups listed), a role no component writes, two hosts sharing an address
 * with a port and without, and a service selecting nothing.
 */
const findings = checkProject({
  catalogue,
  components: [
    component("automation/inventory", "site", {
      hosts: JSON.stringify([
        {
          group: "web",
          members: [
            { name: "web-1", cm_host: "10.0.0.1" },
            { name: "web-2", cm_host: "10.0.0.1" },
            { name: "nat-a", cm_host: "203.0.113.9", cm_port: 2201 },
            { name: "nat-b", cm_host: "203.0.113.9", cm_port: 2201 },
          ],
        },
      ]),
    }),
    component("automation/playbook", "deploy", {
      plays: JSON.stringify([{ name: "bad", hosts: "webs", roles: ["nginx"] }]),
    }),
    component("k8s/service", "orphan"),
  ],
});

/** The finding of `rule` (the first, or the one whose message matches `which`). */
function findingOf(rule: string, which?: RegExp) {
  const found = findings.find(
    (finding) => finding.rule === rule && (which === undefined || which.test(finding.message)),
  );
  assert.ok(found, `no ${rule} finding in ${JSON.stringify(findings.map((f) => f.rule))}`);
  return found;
}

describe("a check finding in the dashboard's words", () => {
  after(() => chooseLanguage("en"));

  it("in English, a finding is worded from its rule id and params, as the core words it", () => {
    chooseLanguage("en");
    const play = findingOf("play-unknown-group");
    assert.equal(
      findingMessage(play),
      "automation/playbook `deploy`: play `bad` is aimed at `webs`, which no inventory defines - add the group to the inventory (groups: `all` and `web`), or change the play's hosts",
    );
    // the core's sentence names the same parts, so the two agree
    assert.equal(
      findingMessage(play),
      play.message.replace("(groups: all, web)", "(groups: `all` and `web`)"),
    );
    assert.equal(
      findingMessage(findingOf("hosts-share-address", /203\.0\.113\.9/)),
      "automation/inventory `site`: hosts `nat-a` and `nat-b` share the address `203.0.113.9` port 2201, so the automation tool configures one machine as 2 hosts - give each host its own cm_host, or keep one of them",
    );
  });

  it("in French, every part is set in a French sentence: lists joined with « et », forms and numbers agreeing", () => {
    chooseLanguage("fr");
    assert.equal(
      findingMessage(findingOf("play-unknown-group")),
      "automation/playbook `deploy`\u00a0: le play `bad` vise `webs`, qu’aucun inventaire ne définit – ajoutez le groupe à l’inventaire (groupes\u00a0: `all` et `web`), ou changez les hôtes du play",
    );
    assert.equal(
      findingMessage(findingOf("role-not-vendored")),
      "le rôle `nginx` est utilisé par automation/playbook `deploy` mais aucun composant n’écrit roles/nginx/ – ajoutez un rôle nommé `nginx`",
    );
    assert.equal(
      findingMessage(findingOf("hosts-share-address", /10\.0\.0\.1/)),
      "automation/inventory `site`\u00a0: les hôtes `web-1` et `web-2` partagent l’adresse `10.0.0.1`, l’outil d’automatisation configure donc une même machine comme 2 hôtes – donnez à chaque hôte son propre cm_host, ou n’en gardez qu’un",
    );
    assert.equal(
      findingMessage(findingOf("service-selects-nothing")),
      "k8s/service `orphan` sélectionne les pods étiquetés `app=orphan` dans l’espace de noms `default`, et aucun déploiement du projet n’a ces labels – ajoutez un déploiement nommé `orphan` (mêmes labels) ou renommez le service",
    );
    // nothing left unfilled and no English sentence of the core's, in any finding
    for (const finding of findings) {
      const message = findingMessage(finding);
      assert.doesNotMatch(message, /\{\{|\[object|finding\./, message);
      assert.notEqual(message, finding.message);
    }
  });
});
