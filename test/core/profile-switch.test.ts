// kiln.toml's automation_profile rewritten in place for `kiln update --profile`: whatever way
// the user wrote the file, only that key changes (or is added to the `project` table), every
// other byte stays, and the result reads back as the same project with the new profile.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseProjectConfig } from "../../src/core/project/kiln-toml.ts";
import { withAutomationProfile } from "../../src/core/project/profile-switch.ts";

describe("withAutomationProfile", () => {
  test("an existing key keeps its quoting style and its comment; only the value changes", () => {
    const text = `[project]\nname = "x"\nautomation_profile = 'cm'   # the default\noutput_dir = "infra"\n`;
    assert.equal(
      withAutomationProfile(text, "ansible"),
      `[project]\nname = "x"\nautomation_profile = 'ansible'   # the default\noutput_dir = "infra"\n`,
    );
  });

  test("an absent key is added at the end of [project]; a table kiln does not know is refused, not rewritten", () => {
    assert.equal(
      withAutomationProfile(`[project]\nname = "x"\n`, "ansible"),
      `[project]\nname = "x"\nautomation_profile = "ansible"\n`,
    );
    assert.throws(
      () => withAutomationProfile(`[project]\nname = "x"\n\n[extra]\nkey = 1\n`, "ansible"),
      {
        message: "kiln.toml, line 4: unknown key `extra` - fix it or run `kiln init --force`",
      },
    );
  });

  test("dotted keys and an inline table are extended in their own form", () => {
    assert.equal(
      withAutomationProfile(`project.name = "x"\nproject.output_dir = "infra"\n`, "ansible"),
      `project.name = "x"\nproject.output_dir = "infra"\nproject.automation_profile = "ansible"\n`,
    );
    assert.equal(
      withAutomationProfile(`project = { name = "x", output_dir = "infra" }\n`, "ansible"),
      `project = { name = "x", output_dir = "infra", automation_profile = "ansible" }\n`,
    );
  });

  test("CRLF line ends stay CRLF, and an empty file gets a [project] table ending in a newline", () => {
    assert.equal(
      withAutomationProfile(`[project]\r\nname = "x"\r\n`, "ansible"),
      `[project]\r\nname = "x"\r\nautomation_profile = "ansible"\r\n`,
    );
    const made = withAutomationProfile("", "ansible");
    assert.equal(made, `[project]\nautomation_profile = "ansible"\n`);
    assert.equal(parseProjectConfig(made).automationProfile, "ansible");
  });

  test("a file that names the profile already (or none, for cm) is returned as it is", () => {
    const cm = `# mine\n[project]\nname = "x"\n`;
    assert.equal(withAutomationProfile(cm, "cm"), cm);
    const ansible = `[project]\nautomation_profile = "ansible" # set by hand\n`;
    assert.equal(withAutomationProfile(ansible, "ansible"), ansible);
    assert.equal(
      withAutomationProfile(ansible, "cm"),
      `[project]\nautomation_profile = "cm" # set by hand\n`,
    );
  });
});
