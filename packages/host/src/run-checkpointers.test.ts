import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gitRepo, testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { runCheckpointers } from "./run-checkpointers";

/** A repository and a home; `watchers()` lists the running monitors of its store. */
function workspace() {
  const base = testTempDir();
  const cwd = path.join(base, "repo");
  const home = path.join(base, "home");
  mkdirSync(cwd);
  gitRepo(cwd, { "a.txt": "one\n" });
  const watchers = () => {
    const stores = path.join(home, "checkpoints");
    if (!existsSync(stores)) return [];
    return readdirSync(stores).flatMap((store) => {
      const folder = path.join(stores, store, "monitors");
      return existsSync(folder) ? readdirSync(folder) : [];
    });
  };
  return { cwd, home, watchers };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("runCheckpointers", () => {
  it("runs of one workspace share one watcher, kept while they linger, closed with the host", async () => {
    const { cwd, home, watchers } = workspace();
    const checkpointers = runCheckpointers(home, { monitor: true, lingerMs: 60_000 });
    const first = checkpointers.checkpointerFor(cwd);
    const start = await first.take("s1", undefined);
    // a second run at the same time, from a folder of the same workspace
    mkdirSync(path.join(cwd, "sub"));
    const second = checkpointers.checkpointerFor(path.join(cwd, "sub"));
    await second.take("s2", undefined);
    expect(watchers()).toHaveLength(1);
    await first.close();
    await second.close();
    const kept = watchers();
    expect(kept).toHaveLength(1);
    // a change between runs is recorded by the next run's first checkpoint, same watcher
    writeFileSync(path.join(cwd, "a.txt"), "two\n");
    const next = checkpointers.checkpointerFor(cwd);
    const record = await next.take("s1", start.id);
    expect(record.changed).toEqual([{ path: "a.txt", change: "modified" }]);
    expect(watchers()).toEqual(kept);
    await next.close();
    await checkpointers.close();
    expect(watchers()).toEqual([]);
  });

  it("a run that finds the store kept open reads the user's info/exclude again", async () => {
    const { cwd, home } = workspace();
    const exclude = path.join(cwd, ".git", "info", "exclude");
    writeFileSync(path.join(cwd, "scratch.txt"), "scratch\n");
    writeFileSync(exclude, "scratch.txt\n");
    const checkpointers = runCheckpointers(home, { monitor: true, lingerMs: 60_000 });
    const first = checkpointers.checkpointerFor(cwd);
    const start = await first.take("s1", undefined);
    await first.close();
    writeFileSync(exclude, "# nothing excluded now\n");
    const next = checkpointers.checkpointerFor(cwd);
    const record = await next.take("s1", start.id);
    expect(record.changed).toEqual([{ path: "scratch.txt", change: "added" }]);
    await next.close();
    await checkpointers.close();
  });

  it("without lingering the watcher closes as the run ends; with it, once the time is up", async () => {
    const { cwd, home, watchers } = workspace();
    const now = runCheckpointers(home, { monitor: true, lingerMs: 0 });
    const run = now.checkpointerFor(cwd);
    await run.take("s1", undefined);
    expect(watchers()).toHaveLength(1);
    await run.close();
    expect(watchers()).toEqual([]);
    const later = runCheckpointers(home, { monitor: true, lingerMs: 50 });
    const lingering = later.checkpointerFor(cwd);
    await lingering.take("s1", undefined);
    await lingering.close();
    expect(watchers()).toHaveLength(1);
    for (let waited = 0; waited < 100 && watchers().length > 0; waited += 1) await sleep(20);
    expect(watchers()).toEqual([]);
  });

  it("a closed run's checkpointer takes no more checkpoints", async () => {
    const { cwd, home } = workspace();
    const checkpointers = runCheckpointers(home, { monitor: false, lingerMs: 0 });
    const run = checkpointers.checkpointerFor(cwd);
    await run.close();
    expect((await run.take("s1", undefined)).skipped).toMatch(/closed/);
  });
});
