import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { importSessions } from "../import-run";
import { writeOpencodeStorage, writeStorageFile } from "./test-opencode-storage";

const exportDir = fileURLToPath(new URL("../../__fixtures__/samples/opencode", import.meta.url));
const sample = JSON.parse(
  readFileSync(join(exportDir, "ses_18684d584ffe1JuGPUt8v6Igr8.json"), "utf8"),
) as {
  info: { id: string };
  messages: { info: { id: string }; parts: { id: string }[] }[];
};

/**
 * opencode's JSON-file storage (0.x/1.x) from the sample export (`writeOpencodeStorage`), plus
 * one damaged part file.
 */
function writeStorage(root: string): string {
  const storage = join(root, "opencode", "storage");
  writeOpencodeStorage(storage);
  writeStorageFile(join(storage, "part", sample.messages[0]!.info.id, "prt_zzz.json"), "{broken");
  return storage;
}

describe("opencode's storage folder", () => {
  it("imports each session of storage/ as the export of the same session would, naming a damaged part file", async () => {
    const root = testTempDir("tapedeck-opencode-storage-");
    const storage = writeStorage(root);
    const fromStorage = createSessionStore({ home: join(root, "a") });
    // The default location: $XDG_DATA_HOME/opencode, whose storage/ is found inside it.
    const summary = await importSessions({
      store: fromStorage,
      source: "opencode",
      env: { HOME: "/nowhere", XDG_DATA_HOME: root },
    });
    expect(summary.counts.created).toBe(1);
    expect(summary.files.map((file) => file.path)).toEqual([
      join(storage, "session", "prj_1", `${sample.info.id}.json`),
    ]);
    expect(summary.files[0]?.skipped).toEqual([
      {
        path: join(storage, "part", sample.messages[0]!.info.id, "prt_zzz.json"),
        line: 0,
        offset: 0,
        reason: "not JSON",
      },
    ]);
    const fromExport = createSessionStore({ home: join(root, "b") });
    const exported = await importSessions({
      store: fromExport,
      source: "opencode",
      paths: [exportDir],
    });
    const a = await fromStorage.readSession(summary.files[0]!.sessions[0]!.sessionId);
    const b = await fromExport.readSession(exported.files[0]!.sessions[0]!.sessionId);
    expect(a.sessionId).toBe(b.sessionId);
    expect(a.events).toEqual(b.events);
    const again = await importSessions({
      store: fromStorage,
      source: "opencode",
      paths: [storage],
    });
    expect(again.counts).toEqual({ created: 0, appended: 0, forked: 0, unchanged: 1 });
  });
});
