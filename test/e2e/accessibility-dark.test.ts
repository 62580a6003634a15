// The dashboard's accessibility audit in the dark theme (the rules that read colours: see
// axe-audit.ts), a file of its own so it runs beside the light theme's
// (accessibility.test.ts) instead of after it.
import { describeThemeAudit } from "./axe-audit.ts";

describeThemeAudit("dark");
