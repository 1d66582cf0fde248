/**
 * The home's continuous-import setting (off by default): when on, the viewer and every
 * `tapedeck sessions …` command import the new and grown sessions of other agents first. The
 * setting is a marker file in the home, so asking costs one `stat` and loads nothing.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The folder of a home where continuous import keeps its state (one file per source). */
export function importStateDir(home: string): string {
  return path.join(home, "import");
}

function markerPath(home: string): string {
  return path.join(importStateDir(home), "auto-on");
}

/** True when the home's auto import is on (`tapedeck import --auto on`). */
export function isAutoImportOn(home: string): boolean {
  return existsSync(markerPath(home));
}

/** Turns the home's auto import on or off. */
export function setAutoImport(home: string, on: boolean): void {
  if (on) {
    mkdirSync(importStateDir(home), { recursive: true });
    writeFileSync(markerPath(home), "on\n");
  } else {
    rmSync(markerPath(home), { force: true });
  }
}
