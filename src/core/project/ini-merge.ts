// The three-way merge of an INI file by its structure: inventories (`[group]` host lines,
// `[group:vars]` keys, `[group:children]` names) and the automation tool's config (`cm.cfg`,
// `ansible.cfg`). Sections merge by name; inside one, `key = value` lines by key, host lines by
// host name, a children section's lines by the name (so as a set). Comment and blank lines stay
// with the line after them, so the user's notes move with what they describe and every line the
// merge does not change is written back as it was, byte for byte.
//
// Hand-written: the INI packages on npm parse into objects and write them back in their own
// format, losing comments, order and spacing; here every line is kept as read. Not merged here
// (the caller falls back to the line merge): a key or section twice, or a continuation line.
// Pure: runs in the browser too.
import { splitLines } from "../line-diff.ts";
import {
  type ConflictPick,
  type Entry,
  type EntryRules,
  type KeyConflict,
  mergeEntries,
  uniqueIds,
} from "./tree-merge.ts";
import type { StructuralMerge } from "./yaml-merge.ts";

/** A line of the file with the comment and blank lines above it. */
interface IniLine {
  /** Comment and blank lines right above it, as read. */
  above: string[];
  /** The line itself, with its line end. */
  line: string;
  /** Its 1-based line number in the side's text. */
  number: number;
}

/** A section: its header (none for the lines before the first header) and its lines. */
interface IniSection {
  header: IniLine | undefined;
  entries: Entry<IniLine>[];
}

interface IniFile {
  sections: Entry<IniSection>[];
  /** Comment and blank lines after the last line. */
  tail: string[];
}

const SECTION = /^\s*\[([^\]]+)\]\s*$/;
const KEY_VALUE = /^\s*([^=\s]+)\s*=/;
const COMMENT_OR_BLANK = /^\s*([#;].*)?$/;

/** The identity of a line in a section: the key of `key = value`, else its first word. */
function lineId(line: string): string {
  const bare = line.trim();
  return KEY_VALUE.exec(bare)?.[1] ?? bare.split(/\s+/)[0] ?? bare;
}

/** A side parsed, or undefined when a key or section repeats or a line continues another. */
function parseIni(text: string): IniFile | undefined {
  const sections: Entry<IniSection>[] = [{ id: "", item: { header: undefined, entries: [] } }];
  let above: string[] = [];
  let number = 0;
  for (const line of splitLines(text)) {
    number += 1;
    const bare = line.replace(/\r?\n$/, "");
    if (COMMENT_OR_BLANK.test(bare)) {
      above.push(line);
      continue;
    }
    // an indented line continues the value above it: not merged by key
    if (/^\s/.test(bare)) return undefined;
    const header = SECTION.exec(bare);
    if (header) {
      const name = (header[1] as string).trim();
      sections.push({ id: name, item: { header: { above, line, number }, entries: [] } });
    } else {
      const section = sections.at(-1)?.item as IniSection;
      section.entries.push({ id: lineId(bare), item: { above, line, number } });
    }
    above = [];
  }
  const valid = uniqueIds(sections) && sections.every((section) => uniqueIds(section.item.entries));
  return valid ? { sections, tail: above } : undefined;
}

/** The text of a line without its line end, as a conflict shows it. */
const shown = (line: IniLine | undefined) => line?.line.replace(/\r?\n$/, "");

const sameLine = (a: IniLine, b: IniLine) => shown(a) === shown(b);

/** Merges an INI file by sections and keys, each conflict settled as `pick` says. */
export function mergeIni(
  base: string,
  ours: string,
  theirs: string,
  pick: ConflictPick,
): StructuralMerge | undefined {
  const baseFile = parseIni(base);
  const oursFile = parseIni(ours);
  const theirsFile = parseIni(theirs);
  if (!baseFile || !oursFile || !theirsFile) return undefined;
  // what is written is the user's lines as read: the file on disk must come back whole
  if (textOf(oursFile.sections, oursFile.tail) !== ours) return undefined;
  const conflicts: KeyConflict[] = [];
  const conflict = (
    keyPath: string,
    baseItem: IniLine | undefined,
    oursItem: IniLine | undefined,
    theirsItem: IniLine | undefined,
  ): IniLine | undefined => {
    conflicts.push({
      keyPath,
      ours: shown(oursItem),
      theirs: shown(theirsItem),
      oursLine: oursItem?.number ?? 0,
      theirsLine: theirsItem?.number ?? 0,
    });
    const taken = pick === "ours" ? oursItem : pick === "theirs" ? theirsItem : baseItem;
    // the side taken's line, under the comments the user wrote above it
    return taken && { ...taken, above: oursItem?.above ?? taken.above };
  };
  const lineRules = (section: string): EntryRules<IniLine> => {
    const at = (id: string) => (section === "" ? id : `[${section}] ${id}`);
    return {
      adopt: (line) => line,
      same: sameLine,
      merge: (baseLine, oursLine, theirsLine, id) => {
        if (sameLine(oursLine, theirsLine)) return oursLine;
        if (baseLine && sameLine(baseLine, theirsLine)) return oursLine;
        if (baseLine && sameLine(baseLine, oursLine))
          return { ...theirsLine, above: oursLine.above };
        return conflict(at(id), baseLine, oursLine, theirsLine);
      },
      settleRemoval: (id, baseLine, oursLine, theirsLine) =>
        conflict(at(id), baseLine, oursLine, theirsLine),
    };
  };
  const sameSection = (a: IniSection, b: IniSection) =>
    a.entries.length === b.entries.length &&
    a.entries.every((entry, index) => {
      const other = b.entries[index];
      return other !== undefined && other.id === entry.id && sameLine(entry.item, other.item);
    });
  const sectionRules: EntryRules<IniSection> = {
    adopt: (section) => section,
    same: sameSection,
    merge: (baseSection, oursSection, theirsSection, id) => ({
      header: oursSection.header,
      entries: mergeEntries(
        baseSection?.entries ?? [],
        oursSection.entries,
        theirsSection.entries,
        lineRules(id),
      ),
    }),
    settleRemoval: (id, baseSection, oursSection, theirsSection) => {
      const header = (section: IniSection | undefined) => section?.header;
      const kept = conflict(
        `[${id}]`,
        header(baseSection),
        header(oursSection),
        header(theirsSection),
      );
      if (kept === undefined) return undefined;
      return pick === "ours" ? oursSection : pick === "theirs" ? theirsSection : baseSection;
    },
  };
  const sections = mergeEntries(
    baseFile.sections,
    oursFile.sections,
    theirsFile.sections,
    sectionRules,
  );
  return { text: textOf(sections, oursFile.tail), conflicts };
}

/** The text of sections and the lines after them. */
function textOf(sections: readonly Entry<IniSection>[], tail: readonly string[]): string {
  const lines = sections.flatMap(({ item }) => [
    ...(item.header ? [...item.header.above, item.header.line] : []),
    ...item.entries.flatMap((entry) => [...entry.item.above, entry.item.line]),
  ]);
  return joinLines([...lines, ...tail]);
}

/** Lines joined, each one that another follows ending in a line end. */
function joinLines(lines: readonly string[]): string {
  return lines
    .map((line, index) => (index < lines.length - 1 && !line.endsWith("\n") ? `${line}\n` : line))
    .join("");
}
