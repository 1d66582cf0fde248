import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { defaultWorkerEntry } from "./import-pool";
import { type ImportOptions, importSessions } from "./import-run";

const jsonl = (entries: unknown[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");
const uuid = (n: number) => `019b64e5-57fa-7463-b644-${String(n).padStart(12, "0")}`;

/** A Codex rollout of `prompts` (one answer each), optionally forked from another rollout. */
function rollout(id: string, prompts: string[], forkedFrom?: string): string {
  let second = 0;
  const line = (type: string, payload: unknown) => {
    second += 1;
    return {
      timestamp: new Date(Date.UTC(2025, 11, 28, 12, 0, second)).toISOString(),
      type,
      payload,
    };
  };
  const message = (role: string, kind: string, text: string) =>
    line("response_item", { type: "message", role, content: [{ type: kind, text }] });
  return jsonl([
    line("session_meta", {
      id,
      timestamp: "2025-12-28T12:00:00.000Z",
      cwd: "/work/app",
      ...(forkedFrom === undefined ? {} : { forked_from_id: forkedFrom }),
    }),
    ...prompts.flatMap((prompt) => [
      message("user", "input_text", prompt),
      message("assistant", "output_text", `answer to ${prompt} `.repeat(50)),
    ]),
  ]);
}

/**
 * Codex rollouts that exercise the order rules: the same source session in two files (the later
 * one grew: appended), a fork of a session in an earlier file (written at once) and of one in a
 * later file (written at the end), a damaged line, and a path that does not exist.
 */
function corpus(): { paths: string[] } {
  const dir = join(testTempDir("tapedeck-import-workers-"), "sessions");
  const day = join(dir, "2025", "12", "28");
  mkdirSync(day, { recursive: true });
  const write = (name: string, text: string) => writeFileSync(join(day, `${name}.jsonl`), text);
  write("rollout-01", rollout(uuid(1), ["one"]));
  write("rollout-02", rollout(uuid(2), ["one", "two"], uuid(1)));
  write("rollout-03", rollout(uuid(3), ["three", "four"], uuid(9)));
  write("rollout-04", `${rollout(uuid(4), ["four"])}not json\n`);
  write("rollout-05", rollout(uuid(1), ["one", "more"]));
  for (let n = 10; n < 22; n += 1) write(`rollout-${n}`, rollout(uuid(n), [`p${n}`, `q${n}`]));
  write("rollout-30", rollout(uuid(9), ["three", "nine"]));
  return { paths: [dir, join(dir, "missing")] };
}

/** Every log of a home, by session id. */
async function logs(home: string): Promise<Record<string, string>> {
  const store = createSessionStore({ home });
  const ids = (await store.list()).map((listing) => listing.sessionId);
  expect(ids.length).toBeGreaterThan(0);
  return Object.fromEntries(ids.map((id) => [id, readFileSync(store.pathOf(id), "utf8")]));
}

async function importInto(home: string, options: Partial<ImportOptions>) {
  const store = createSessionStore({ home });
  const done: string[] = [];
  const summary = await importSessions({
    store,
    source: "codex",
    onProgress: (progress) => done.push(progress.path),
    ...options,
  });
  return { summary, done };
}

describe("importSessions on worker threads", () => {
  it("writes the same logs and the same report as the main thread, and re-imports unchanged", async () => {
    expect(defaultWorkerEntry()?.url.pathname.endsWith("/import-worker.ts")).toBe(true);
    const { paths } = corpus();
    const root = testTempDir("tapedeck-import-workers-home-");
    const alone = await importInto(join(root, "alone"), { paths, workers: 0 });
    const pooled = await importInto(join(root, "pooled"), { paths, workers: 2, thisThread: false });
    // Both start; the second may find every file taken.
    expect(pooled.summary.workers).toBeGreaterThanOrEqual(1);
    expect({ ...pooled.summary, workers: 0 }).toEqual(alone.summary);
    expect(await logs(join(root, "pooled"))).toEqual(await logs(join(root, "alone")));
    expect(pooled.done.sort()).toEqual(alone.done.sort());
    // A worker and this thread taking files as they come: the same again.
    const mixed = await importInto(join(root, "mixed"), { paths, workers: 1 });
    expect({ ...mixed.summary, workers: 0 }).toEqual(alone.summary);
    expect(await logs(join(root, "mixed"))).toEqual(await logs(join(root, "alone")));
    // The order rules were exercised: the same source session in two files (appended).
    const actions = alone.summary.files.map((file) => file.sessions.map((s) => s.action));
    expect(actions.slice(0, 5)).toEqual([
      ["created"],
      ["created"],
      ["created"],
      ["created"],
      ["appended"],
    ]);
    expect(alone.summary.files.at(-1)!.error).toBe("no such file or directory");
    expect(alone.summary.skipped).toBe(1);

    // A dry run on workers reports what one thread reports and writes nothing.
    const dry = { paths, dryRun: true };
    const dryAlone = await importInto(join(root, "dry-alone"), { ...dry, workers: 0 });
    const dryPooled = await importInto(join(root, "dry"), {
      ...dry,
      workers: 2,
      thisThread: false,
    });
    expect({ ...dryPooled.summary, workers: 0 }).toEqual(dryAlone.summary);
    expect(await createSessionStore({ home: join(root, "dry") }).list()).toEqual([]);

    const again = await importInto(join(root, "pooled"), { paths, workers: 2 });
    expect(again.summary.counts).toEqual({ created: 0, appended: 0, forked: 0, unchanged: 18 });
    expect(again.summary.newEvents).toBe(0);
  }, 60_000);

  it("two pooled imports of the same folder at once leave the logs one import leaves", async () => {
    const { paths } = corpus();
    const root = testTempDir("tapedeck-import-workers-twice-");
    const alone = await importInto(join(root, "alone"), { paths, workers: 0 });
    const both = await Promise.all([
      importInto(join(root, "both"), { paths, workers: 1, thisThread: false }),
      importInto(join(root, "both"), { paths, workers: 1 }),
    ]);
    expect(await logs(join(root, "both"))).toEqual(await logs(join(root, "alone")));
    const created = both.map((run) => run.summary.counts.created);
    expect(created[0]! + created[1]!).toBe(alone.summary.counts.created);
  }, 60_000);

  it("turns a worker that stops into an error of the file it held, and imports the rest", async () => {
    const { paths } = corpus();
    const home = testTempDir("tapedeck-import-workers-crash-");
    const crashing = new URL("./test-crash-worker.ts", import.meta.url);
    const entry = { ...defaultWorkerEntry()!, url: crashing };
    const { summary } = await importInto(home, {
      paths,
      workers: 2,
      workerEntry: entry,
      thisThread: false,
    });
    const failed = summary.files.filter((file) =>
      file.error?.startsWith("the import worker stopped"),
    );
    // The file that stopped it, and the one it held beside it, if any (a window of two).
    expect(failed.map((file) => file.path)).toContain(
      join(paths[0]!, "2025", "12", "28", "rollout-12.jsonl"),
    );
    expect(failed.length).toBeLessThanOrEqual(2);
    expect(failed[0]!.error).toContain("crash requested");
    const fine = summary.files.filter((file) => file.error === undefined);
    expect(fine).toHaveLength(summary.files.length - 1 - failed.length); // and the missing path
    expect(fine.every((file) => file.sessions.length === 1)).toBe(true);
  }, 60_000);

  it("fails, without hanging, when its own progress callback throws", async () => {
    const { paths } = corpus();
    const store = createSessionStore({ home: testTempDir("tapedeck-import-workers-throw-") });
    const failing = importSessions({
      store,
      source: "codex",
      // Only the readable folder: a missing path is reported on this thread, before the pool.
      paths: [paths[0]!],
      workers: 1,
      thisThread: false,
      onProgress: () => {
        throw new Error("progress failed");
      },
    });
    await expect(failing).rejects.toThrow("progress failed");
  }, 60_000);

  it("fails, without hanging, when its progress callback throws for a file a stopped worker held", async () => {
    const { paths } = corpus();
    const crashing = new URL("./test-crash-worker.ts", import.meta.url);
    const crashed = "rollout-12.jsonl";
    const failing = importSessions({
      store: createSessionStore({ home: testTempDir("tapedeck-import-workers-exit-throw-") }),
      source: "codex",
      paths: [paths[0]!],
      workers: 1,
      thisThread: false,
      workerEntry: { ...defaultWorkerEntry()!, url: crashing },
      onProgress: (progress) => {
        if (progress.path.endsWith(crashed)) throw new Error("progress failed on the crashed file");
      },
    });
    await expect(failing).rejects.toThrow("progress failed on the crashed file");
  }, 60_000);

  it("imports on this thread when no worker can start", async () => {
    const { paths } = corpus();
    const root = testTempDir("tapedeck-import-workers-nostart-");
    const missing = { url: pathToFileURL(join(root, "no-such-worker.mjs")) };
    const alone = await importInto(join(root, "alone"), { paths, workers: 0 });
    // This thread takes no file from the pool: every file comes back as not started.
    const fallback = await importInto(join(root, "fallback"), {
      paths,
      workers: 2,
      workerEntry: missing,
      thisThread: false,
    });
    expect(fallback.summary.workers).toBe(0);
    expect(fallback.summary).toEqual(alone.summary);
    expect(await logs(join(root, "fallback"))).toEqual(await logs(join(root, "alone")));
  }, 60_000);
});
