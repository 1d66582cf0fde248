import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { importSessions } from "../import-run";
import { opencodeSample, writeOpencodeDatabase } from "./test-opencode-db";

describe("opencode's SQLite database", () => {
  it("imports each session of opencode.db as the export of the same session would", async () => {
    const root = testTempDir("tapedeck-opencode-db-");
    writeOpencodeDatabase(join(root, "data"), { damagedPart: true });
    const fromDb = createSessionStore({ home: join(root, "a") });
    const summary = await importSessions({
      store: fromDb,
      source: "opencode",
      paths: [join(root, "data")],
    });
    expect(summary.counts.created).toBe(1);
    expect(summary.files[0]?.skipped.map((skip) => skip.reason)).toEqual(["row prt_zzz: not JSON"]);
    const fromExport = createSessionStore({ home: join(root, "b") });
    const exported = await importSessions({
      store: fromExport,
      source: "opencode",
      paths: [fileURLToPath(new URL("../../__fixtures__/samples/opencode", import.meta.url))],
    });
    const a = await fromDb.readSession(summary.files[0]!.sessions[0]!.sessionId);
    const b = await fromExport.readSession(exported.files[0]!.sessions[0]!.sessionId);
    expect(a.sessionId).toBe(b.sessionId);
    expect(a.events).toEqual(b.events);
    expect(a.header.origin).toMatchObject({ tool: "opencode", sessionId: opencodeSample.info.id });
  });
});
