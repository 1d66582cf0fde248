import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSessionStore } from "../src/index";
import { bundleChild, spawnChild } from "./child-process";
import { tempDirectory } from "./helpers";

let script: string;
let temp: ReturnType<typeof tempDirectory>;

beforeAll(async () => {
  script = await bundleChild("tail-child");
  temp = tempDirectory();
});
afterAll(() => {
  temp.cleanup();
  rmSync(dirname(script), { recursive: true, force: true });
});

describe("a crash while a writer keeps its tail", () => {
  it("between writing the tail's temp file and renaming it leaves the temp (counted as kept tails, never read as a tail), removed by compact's reclaim", async () => {
    const store = createSessionStore({ home: temp.home });
    const seed = [{ type: "x-test-note" as const, runId: "r", text: "a note" }];
    const { sessionId } = await store.create({ cwd: temp.root, seed });
    const child = spawnChild(script, [temp.home, sessionId]);
    const tempPath = (await child.waitFor((line) => line.startsWith("temp "))).slice(5);
    expect(await child.exited).toMatchObject({ signal: "SIGKILL" });
    const tailsDir = join(temp.home, "tails");
    expect(dirname(tempPath)).toBe(tailsDir);
    expect(readdirSync(tailsDir)).toEqual([tempPath.slice(tailsDir.length + 1)]);
    expect(JSON.parse(readFileSync(tempPath, "utf8")).size).toBe(
      statSync(store.pathOf(sessionId)).size,
    );

    const kinds = store.storageKinds();
    const tails = kinds.find((kind) => kind.kind === "kept tails");
    expect(await tails?.usage()).toEqual({ bytes: statSync(tempPath).size, files: 1 });
    // The next writer replays (no tail under the log's name) and keeps one; the temp stays.
    await store.append(sessionId, [{ type: "x-test-note", runId: "r", text: "after" }]);
    expect(existsSync(join(tailsDir, `${sessionId}.json`))).toBe(true);
    expect(existsSync(tempPath)).toBe(true);

    const live = new Set(await store.sessionIds());
    const dry = await tails?.reclaim(live, { dryRun: true });
    expect(dry?.bytes).toBe(statSync(tempPath).size);
    expect(existsSync(tempPath)).toBe(true);
    expect(await tails?.reclaim(live, { dryRun: false })).toEqual(dry);
    expect(readdirSync(tailsDir)).toEqual([`${sessionId}.json`]);
    expect((await store.readSession(sessionId)).lastSeq).toBe(3);
  });
});
