import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { gitRepo, testTempDir } from "@tapedeck/test-temp";
import { afterEach, describe, expect, it } from "vitest";
import type { CheckpointStore } from "./checkpoint-store";
import type { FsMonitorOptions } from "./fs-monitor";
import { runGit } from "./git";
import { openCheckpointStore } from "./open-checkpoint-store";

const REF = "refs/tapedeck/sessions/monitored";
const opened: CheckpointStore[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/**
 * A repository with a tracked file in nested folders and an ignored `build/`, a store watching
 * it, and its first two checkpoints taken (the second once the watcher is ready: from then on
 * checkpoints are answered from the watcher's list).
 */
async function monitored(options: FsMonitorOptions = {}, prepare?: (root: string) => void) {
  const base = testTempDir();
  const root = path.join(base, "repo");
  mkdirSync(path.join(root, "src", "deep"), { recursive: true });
  gitRepo(root, {
    "a.txt": "alpha\n",
    "run.sh": "echo hi\n",
    "gone.txt": "to be deleted\n",
    "src/deep/one.ts": "export const one = 1;\n",
    "src/deep/two.ts": "export const two = 2;\n",
    ".gitignore": "build/\n*.log\n",
  });
  mkdirSync(path.join(root, "build"));
  writeFileSync(path.join(root, "build", "out.txt"), "built\n");
  prepare?.(root);
  const store = await openCheckpointStore({
    home: path.join(base, "home"),
    cwd: root,
    monitor: options,
  });
  opened.push(store);
  const monitor = store.monitor;
  if (monitor === undefined) throw new Error("no monitor");
  let previous = (await store.take({ ref: REF })).id;
  await monitor.whenReady();
  previous = (await store.take({ ref: REF, previous })).id;
  /** Takes the next checkpoint: its changes as `change path [from]`, sorted. */
  const next = async () => {
    const taken = await store.take({ ref: REF, previous });
    previous = taken.id;
    const changes = taken.changes
      .map((change) => [change.change, change.path, change.from].filter(Boolean).join(" "))
      .sort();
    const answer = monitor.lastAnswer?.everything === false ? "listed" : "everything";
    return { changes, answer, id: taken.id };
  };
  return { root, store, monitor, next };
}

/** The blob id git would give `content`. */
function blobOf(content: string): string {
  return execFileSync("git", ["hash-object", "--stdin"], { input: content }).toString().trim();
}

/**
 * Runs `task` with a `git` on PATH that logs each command's subcommand before running the real
 * git: which git processes a checkpoint started.
 */
async function logGitCommands<T>(
  task: () => Promise<T>,
): Promise<{ result: T; subcommands: string[] }> {
  const dir = testTempDir();
  const log = path.join(dir, "git-commands.log");
  const realGit = execFileSync("sh", ["-c", "command -v git"]).toString().trim();
  writeFileSync(
    path.join(dir, "git"),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`,
    { mode: 0o755 },
  );
  writeFileSync(log, "");
  const savedPath = process.env.PATH;
  process.env.PATH = `${dir}${path.delimiter}${savedPath ?? ""}`;
  try {
    const result = await task();
    const known = ["status", "update-index", "write-tree", "diff-index", "ls-files", "rev-parse"];
    const subcommands = readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => line.split(" ").find((word) => known.includes(word)) ?? line);
    return { result, subcommands };
  } finally {
    process.env.PATH = savedPath;
  }
}

describe("FsMonitor (checkpoints answered from inotify)", () => {
  it("answers from its list once ready, and a quiet turn records nothing", async () => {
    const { monitor, next } = await monitored();
    expect(monitor.watchCount).toBe(3); // the root, src, src/deep (not .git, not build/)
    expect(await next()).toEqual(expect.objectContaining({ changes: [], answer: "listed" }));
  });

  it("a quiet checkpoint is its parent; one whose parent is another session's older tree still lists the changes", async () => {
    const { root, store, next } = await monitored();
    const quiet = await next();
    expect(await next()).toEqual({ changes: [], answer: "listed", id: quiet.id });
    // another session of the same store records a change; this session's next checkpoint sees
    // nothing new on the list, but its parent's tree is older than the index's
    writeFileSync(path.join(root, "a.txt"), "changed for the other session\n");
    await store.take({ ref: "refs/tapedeck/sessions/other", previous: quiet.id });
    const after = await next();
    expect(after).toEqual(
      expect.objectContaining({ answer: "listed", changes: ["modified a.txt"] }),
    );
    expect(after.id).not.toBe(quiet.id);
  });

  it("sees a sed -i edit, a delete, a chmod and a rename of a file", async () => {
    const { root, next } = await monitored();
    execFileSync("sed", ["-i", "s/one = 1/one = 11/", path.join(root, "src/deep/one.ts")]);
    rmSync(path.join(root, "gone.txt"));
    chmodSync(path.join(root, "run.sh"), 0o755);
    renameSync(path.join(root, "a.txt"), path.join(root, "b.txt"));
    expect(await next()).toEqual(
      expect.objectContaining({
        answer: "listed",
        changes: [
          "deleted gone.txt",
          "mode run.sh",
          "modified src/deep/one.ts",
          "renamed b.txt a.txt",
        ],
      }),
    );
  });

  it("sees a new file in a new nested folder, then an edit inside it", async () => {
    const { root, next } = await monitored();
    mkdirSync(path.join(root, "pkg/new/nested"), { recursive: true });
    writeFileSync(path.join(root, "pkg/new/nested/file.ts"), "first\n");
    expect((await next()).changes).toEqual(["added pkg/new/nested/file.ts"]);
    // the new folders are watched now: an edit inside is on the list
    writeFileSync(path.join(root, "pkg/new/nested/file.ts"), "second\n");
    writeFileSync(path.join(root, "pkg/new/nested/more.ts"), "more\n");
    expect(await next()).toEqual(
      expect.objectContaining({
        answer: "listed",
        changes: ["added pkg/new/nested/more.ts", "modified pkg/new/nested/file.ts"],
      }),
    );
  });

  it("sees a folder renamed and a folder deleted and made again with other files", async () => {
    const { root, next } = await monitored();
    renameSync(path.join(root, "src"), path.join(root, "lib"));
    const moved = await next();
    expect(moved.changes).toEqual([
      "renamed lib/deep/one.ts src/deep/one.ts",
      "renamed lib/deep/two.ts src/deep/two.ts",
    ]);
    rmSync(path.join(root, "lib"), { recursive: true });
    mkdirSync(path.join(root, "lib/deep"), { recursive: true });
    writeFileSync(path.join(root, "lib/deep/three.ts"), "three\n");
    expect((await next()).changes).toEqual([
      "added lib/deep/three.ts",
      "deleted lib/deep/one.ts",
      "deleted lib/deep/two.ts",
    ]);
    // the folder made again is watched under its name
    writeFileSync(path.join(root, "lib/deep/three.ts"), "three, edited\n");
    expect(await next()).toEqual(
      expect.objectContaining({ answer: "listed", changes: ["modified lib/deep/three.ts"] }),
    );
  });

  it("records edits of tracked files with one update-index and no git status", async () => {
    const { root, store, next } = await monitored();
    const commands = await logGitCommands(async () => {
      execFileSync("sed", ["-i", "s/two = 2/two = 22/", path.join(root, "src/deep/two.ts")]);
      writeFileSync(path.join(root, "a.txt"), "alpha, edited\n");
      rmSync(path.join(root, "gone.txt"));
      return next();
    });
    expect(commands.result).toEqual(
      expect.objectContaining({
        answer: "listed",
        changes: ["deleted gone.txt", "modified a.txt", "modified src/deep/two.ts"],
      }),
    );
    expect(commands.subcommands.filter((name) => name === "status")).toEqual([]);
    expect(commands.subcommands.filter((name) => name === "update-index")).toHaveLength(1);
    const recorded = await runGit(
      store.place,
      ["rev-parse", `${await store.requireTree(commands.result.id)}:src/deep/two.ts`],
      { bare: true },
    );
    expect(recorded.stdout.toString().trim()).toBe(blobOf("export const two = 22;\n"));
  });

  it("a new file beside the edits (or an ignored one) makes git status list them, as before", async () => {
    const { root, next } = await monitored();
    writeFileSync(path.join(root, "a.txt"), "alpha, edited\n");
    writeFileSync(path.join(root, "src/deep/debug.log"), "ignored\n");
    const ignoredBeside = await next();
    expect(ignoredBeside).toEqual(
      expect.objectContaining({ answer: "listed", changes: ["modified a.txt"] }),
    );
    writeFileSync(path.join(root, "src/deep/one.ts"), "export const one = 111;\n");
    writeFileSync(path.join(root, "src/deep/three.ts"), "three\n");
    expect(await next()).toEqual(
      expect.objectContaining({
        answer: "listed",
        changes: ["added src/deep/three.ts", "modified src/deep/one.ts"],
      }),
    );
  });

  it("a tracked folder moved out of the workspace records every file under it deleted", async () => {
    const { root, next } = await monitored();
    renameSync(path.join(root, "src"), path.join(path.dirname(root), "src-moved-out"));
    expect(await next()).toEqual(
      expect.objectContaining({
        answer: "listed",
        changes: ["deleted src/deep/one.ts", "deleted src/deep/two.ts"],
      }),
    );
  });

  it("a .gitignore edit that un-ignores a folder records it, and watches it from then on", async () => {
    const { root, next } = await monitored();
    execFileSync("sed", ["-i", "/^build\\/$/d", path.join(root, ".gitignore")]);
    const unignored = await next();
    expect(unignored.answer).toBe("everything");
    expect(unignored.changes).toEqual(["added build/out.txt", "modified .gitignore"]);
    writeFileSync(path.join(root, "build", "out.txt"), "built again\n");
    expect(await next()).toEqual(
      expect.objectContaining({ answer: "listed", changes: ["modified build/out.txt"] }),
    );
  });

  it("a store kept open reads the user's info/exclude again: a folder no longer excluded is recorded, then watched", async () => {
    const exclude = (root: string) => path.join(root, ".git", "info", "exclude");
    const { root, store, next } = await monitored({}, (root) => {
      mkdirSync(path.join(root, "scratch"));
      writeFileSync(path.join(root, "scratch", "notes.txt"), "notes\n");
      writeFileSync(exclude(root), "scratch/\n");
    });
    writeFileSync(exclude(root), "# nothing excluded now\n");
    await store.refreshSettings();
    expect(await next()).toEqual(
      expect.objectContaining({ answer: "everything", changes: ["added scratch/notes.txt"] }),
    );
    writeFileSync(path.join(root, "scratch", "notes.txt"), "more notes\n");
    expect(await next()).toEqual(
      expect.objectContaining({ answer: "listed", changes: ["modified scratch/notes.txt"] }),
    );
  });

  it("a burst of events as large as the kernel queue makes git check everything", async () => {
    const { root, next } = await monitored({ queueLimit: 5 });
    for (let index = 0; index < 12; index += 1) {
      writeFileSync(path.join(root, `burst-${String(index).padStart(2, "0")}.txt`), `${index}\n`);
    }
    const burst = await next();
    expect(burst.answer).toBe("everything");
    expect(burst.changes).toEqual(
      Array.from({ length: 12 }, (_, index) => `added burst-${String(index).padStart(2, "0")}.txt`),
    );
    // the next interval is trusted again
    writeFileSync(path.join(root, "burst-00.txt"), "changed\n");
    expect(await next()).toEqual(
      expect.objectContaining({ answer: "listed", changes: ["modified burst-00.txt"] }),
    );
  });

  it("a change made while git runs is recorded by the next checkpoint", async () => {
    const { root, store, monitor, next } = await monitored();
    writeFileSync(path.join(root, "a.txt"), "before git runs\n");
    const file = path.join(root, "src/deep/two.ts");
    // Once the list is handed over, git runs: the file changes then, off this checkpoint's list.
    const handOver = monitor.changedSince.bind(monitor);
    monitor.changedSince = async () => {
      const answer = await handOver();
      writeFileSync(file, "while git runs\n");
      monitor.changedSince = handOver;
      return answer;
    };
    expect((await next()).changes).toEqual(["modified a.txt"]);
    const after = await next();
    expect(after).toEqual(
      expect.objectContaining({ answer: "listed", changes: ["modified src/deep/two.ts"] }),
    );
    const tree = await store.requireTree(after.id);
    const recorded = await runGit(store.place, ["rev-parse", `${tree}:src/deep/two.ts`], {
      bare: true,
    });
    expect(recorded.stdout.toString().trim()).toBe(blobOf("while git runs\n"));
  });

  it("after another process wrote the private index, or while one watches too, git checks everything", async () => {
    const { root, store, next } = await monitored();
    const home = path.dirname(path.dirname(store.dir));
    // another process's checkpoint (no monitor) writes the private index
    const other = await openCheckpointStore({ home, cwd: root });
    writeFileSync(path.join(root, "a.txt"), "changed, recorded by the other\n");
    await other.take({ ref: "refs/tapedeck/sessions/other" });
    writeFileSync(path.join(root, "run.sh"), "echo changed\n");
    const afterOther = await next();
    expect(afterOther.answer).toBe("everything");
    expect(afterOther.changes).toEqual(["modified a.txt", "modified run.sh"]);
    expect(await next()).toEqual(expect.objectContaining({ answer: "listed", changes: [] }));
    // a second watcher of the same workspace (another run): neither trusts its own list
    const second = await openCheckpointStore({ home, cwd: root, monitor: true });
    opened.push(second);
    writeFileSync(path.join(root, "a.txt"), "changed again\n");
    expect(await next()).toEqual(
      expect.objectContaining({ answer: "everything", changes: ["modified a.txt"] }),
    );
    await second.close();
    await next();
    expect((await next()).answer).toBe("listed");
  });

  it("a monitor that cannot start leaves checkpoints working, unmonitored", async () => {
    const base = testTempDir();
    const root = path.join(base, "repo");
    mkdirSync(root);
    gitRepo(root, { "a.txt": "alpha\n" });
    const home = path.join(base, "home");
    const plain = await openCheckpointStore({ home, cwd: root });
    const first = await plain.take({ ref: REF });
    // its cookie folder cannot be made: a file stands where the monitors' folder goes
    writeFileSync(path.join(plain.dir, "monitors"), "not a folder\n");
    const store = await openCheckpointStore({ home, cwd: root, monitor: true });
    opened.push(store);
    expect(store.monitor).toBeUndefined();
    writeFileSync(path.join(root, "a.txt"), "changed\n");
    const taken = await store.take({ ref: REF, previous: first.id });
    expect(taken.changes.map((change) => `${change.change} ${change.path}`)).toEqual([
      "modified a.txt",
    ]);
  });

  it("closing removes its files and stops answering", async () => {
    const { store, monitor } = await monitored();
    const folder = path.join(store.dir, "monitors");
    expect(readdirSync(folder)).toHaveLength(1);
    await store.close();
    expect(readdirSync(folder)).toEqual([]);
    expect(monitor.watchCount).toBe(0);
  });
});
