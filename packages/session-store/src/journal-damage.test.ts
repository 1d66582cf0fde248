/**
 * The change journal damaged by hand or by another program: readers fall back to a scan, never
 * crash or hang, and the next writer replaces it (moving aside what is not a file).
 */
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  appendTurnTo,
  journalIds,
  newSessionIn,
  type TempDirectory,
  tempStore,
} from "../test/helpers";
import { JOURNAL_FILE } from "./change-journal";
import type { SessionStore } from "./index";

let temp: TempDirectory;
let store: SessionStore;
beforeEach(() => ({ temp, store } = tempStore()));
afterEach(() => temp.cleanup());

const newSession = () => newSessionIn(store, temp.root);
const appendTurn = (sessionId: string) => appendTurnTo(store, sessionId);

describe("a damaged change journal", () => {
  it("falls back to a scan when the journal is damaged or shorter than the cursor", async () => {
    const a = await newSession();
    await appendTurn(a);
    const { cursor } = await store.changesSince();
    appendFileSync(join(temp.home, JOURNAL_FILE), "garbage line\n");
    expect(await store.changesSince(cursor)).toMatchObject({ kind: "scan", reason: "damaged" });
    const journal = join(temp.home, JOURNAL_FILE);
    const text = readFileSync(journal, "utf8");
    writeFileSync(journal, text.slice(0, text.indexOf("\n") + 1));
    expect(await store.changesSince(cursor)).toMatchObject({ kind: "scan", reason: "behind" });
    writeFileSync(journal, "not a journal\n");
    const damaged = await store.changesSince(cursor);
    expect(damaged).toMatchObject({ kind: "scan", reason: "damaged", cursor: null });
    // The next writer replaces a damaged journal; readers then scan once and continue.
    await appendTurn(a);
    const rotated = await store.changesSince(cursor);
    expect(rotated).toMatchObject({ kind: "scan", reason: "rotated" });
    expect(journalIds(await store.changesSince(rotated.cursor))).toEqual([]);
  });

  it("a journal grown past any real size (a 5 GB hole) or with a huge garbage line is damage: a scan, never a crash", async () => {
    const a = await newSession();
    const { cursor } = await store.changesSince();
    const journal = join(temp.home, JOURNAL_FILE);
    // A sparse file: 5 GB of NULs after the records, more than one Buffer can hold.
    truncateSync(journal, 5 * 1024 ** 3);
    expect(await store.changesSince(cursor)).toMatchObject({ kind: "scan", reason: "damaged" });
    // One record, then a line of 1 MiB without a newline: damage found in the first chunk read.
    const { cursor: fresh } = await store.changesSince();
    await appendTurn(a); // the writer replaces the damaged journal
    const rotated = await store.changesSince(fresh);
    appendFileSync(journal, `o ${a}\n${"x".repeat(1024 ** 2)}`);
    expect(await store.changesSince(rotated.cursor)).toMatchObject({
      kind: "scan",
      reason: "damaged",
    });
  });

  it("a journal that is not a regular file (FIFO, directory, link) is damage: a scan, never a hang; a writer replaces it", async () => {
    const a = await newSession();
    const { cursor } = await store.changesSince();
    const journal = join(temp.home, JOURNAL_FILE);
    rmSync(journal);
    execFileSync("mkfifo", [journal]);
    expect(await store.changesSince(cursor)).toMatchObject({ kind: "scan", reason: "damaged" });
    await appendTurn(a);
    expect(lstatSync(journal).isFile()).toBe(true);
    rmSync(journal);
    mkdirSync(journal);
    expect(await store.changesSince(cursor)).toMatchObject({ kind: "scan", reason: "damaged" });
    rmSync(journal, { recursive: true });
    const elsewhere = join(temp.root, "not-the-journal.txt");
    writeFileSync(elsewhere, "tapedeck-changes 1 0123456789abcdef\n");
    symlinkSync(elsewhere, journal);
    expect(await store.changesSince(cursor)).toMatchObject({ kind: "scan", reason: "damaged" });
    await appendTurn(a);
    expect(lstatSync(journal).isFile()).toBe(true);
    expect(readFileSync(elsewhere, "utf8")).toBe("tapedeck-changes 1 0123456789abcdef\n");
  });

  it("a writer moves a folder in the journal's place aside (it failed every append with EISDIR)", async () => {
    const a = await newSession();
    const { cursor } = await store.changesSince();
    const journal = join(temp.home, JOURNAL_FILE);
    rmSync(journal);
    mkdirSync(journal);
    writeFileSync(join(journal, "kept.txt"), "mine");
    await appendTurn(a);
    expect(lstatSync(journal).isFile()).toBe(true);
    const aside = readdirSync(temp.home).filter((name) =>
      name.startsWith(`${JOURNAL_FILE}.folder-`),
    );
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(temp.home, aside[0]!, "kept.txt"), "utf8")).toBe("mine");
    expect(await store.changesSince(cursor)).toMatchObject({ kind: "scan", reason: "rotated" });
  });
});
