// The write journal: what a run is about to change, written before its first write and removed
// after its last, so a run killed part-way (SIGKILL, power loss: no undo can run) is found and
// rolled back by the next kiln command in the same folder before it does anything else. Files
// and kiln.lock are then never left half-way: each file is written atomically (old or new),
// and the journal holds every overwritten or removed file's bytes and mode, every new file and
// every folder the run makes.
import {
  chmodSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";

/** In the folder kiln runs in; hidden, named so nobody takes it for a project file. */
export const JOURNAL_FILE = ".kiln-journal.json";

interface JournalEntry {
  /** Absolute destination. */
  path: string;
  /** Its bytes before the run (base64) and mode; absent when the run creates it. */
  original?: string | undefined;
  mode?: number | undefined;
}

interface Journal {
  version: 1;
  /** The process that wrote it: its temporary files carry this number. */
  pid: number;
  entries: JournalEntry[];
  /** Folders the run creates, outermost first. */
  folders: string[];
}

/** The folders above `files` that do not exist yet, outermost first. */
export function missingFolders(files: readonly string[]): string[] {
  const missing = new Set<string>();
  for (const file of files) {
    for (let folder = dirname(file); !missing.has(folder); folder = dirname(folder)) {
      if (statSync(folder, { throwIfNoEntry: false })?.isDirectory()) break;
      missing.add(folder);
      if (dirname(folder) === folder) break;
    }
  }
  return [...missing].sort((a, b) => a.length - b.length);
}

/**
 * Writes the journal into `dir` (atomically), or returns undefined when it cannot be written
 * there (a read-only folder): the run then goes on with its in-process undo alone.
 */
export function writeJournal(
  dir: string,
  entries: JournalEntry[],
  folders: string[],
): string | undefined {
  const path = join(dir, JOURNAL_FILE);
  const journal: Journal = { version: 1, pid: process.pid, entries, folders };
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, JSON.stringify(journal), { flag: "w" });
    renameSync(temporary, path);
    return path;
  } catch {
    try {
      unlinkSync(temporary);
    } catch {
      // never created
    }
    return undefined;
  }
}

export function removeJournal(path: string | undefined): void {
  if (path === undefined) return;
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function restore(entry: JournalEntry): void {
  if (entry.original === undefined) {
    try {
      unlinkSync(entry.path);
    } catch {
      // never written
    }
    return;
  }
  const temporary = `${entry.path}.kiln-restore-${process.pid}.tmp`;
  writeFileSync(temporary, Buffer.from(entry.original, "base64"));
  if (entry.mode !== undefined) chmodSync(temporary, entry.mode);
  renameSync(temporary, entry.path);
}

/** Removes the temporary files the killed process left beside its destinations. */
function removeTemporaries(journal: Journal): void {
  const marker = `.kiln-${journal.pid}-`;
  for (const folder of new Set(journal.entries.map((entry) => dirname(entry.path)))) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      if (name.startsWith(".") && name.includes(marker) && name.endsWith(".tmp")) {
        try {
          unlinkSync(join(folder, name));
        } catch {
          // gone meanwhile
        }
      }
    }
  }
}

/**
 * Rolls back a run that was killed part-way in `dir`, if its journal is there: every file
 * back to its bytes and mode before the run, new files and folders removed. Returns how many
 * files it restored, or undefined when there was nothing to do. Cheap when there is no journal.
 */
export function recoverInterruptedRun(dir: string): number | undefined {
  const path = join(dir, JOURNAL_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  let journal: Journal;
  try {
    journal = JSON.parse(text) as Journal;
    if (journal.version !== 1 || !Array.isArray(journal.entries)) throw new Error("shape");
  } catch {
    // not a journal this kiln wrote (or cut short before the rename, which cannot happen)
    return undefined;
  }
  for (const entry of journal.entries) restore(entry);
  removeTemporaries(journal);
  for (const folder of [...journal.folders].reverse()) {
    try {
      rmdirSync(folder);
    } catch {
      // not empty (someone else's files) or already gone: left as it is
    }
  }
  unlinkSync(path);
  return journal.entries.length;
}
