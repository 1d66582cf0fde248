/**
 * Continuous import of opencode's pre-1.2 `storage/` folder (a JSON file per session, message and
 * part) over the built binary: with auto import on, each `tapedeck sessions …` command imports
 * new sessions and appends to grown ones, reading only their files and nothing when nothing
 * changed, and append to a session imported while opencode streamed its reply once the reply is
 * done (never a fork); `tapedeck import --watch` lists a damaged part file it skipped.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { cliContext, listSessions, readLog, runCli } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";
import { opencodeSample } from "../../../packages/importers/src/sources/test-opencode-db";
import {
  addOpencodeStorageMessages,
  storageMessageId,
  writeOpencodeStorage,
  writeStorageFile,
} from "../../../packages/importers/src/sources/test-opencode-storage";

const sampleId = opencodeSample.info.id;

describe("continuous import of opencode's storage folder", () => {
  it("imports new and grown sessions before a sessions command, reading only their files, and nothing when nothing changed", async () => {
    const { workspace, cli, env } = await cliContext();
    // HOME is the workspace root (see binaryEnv): opencode's default data folder is under it.
    const storage = path.join(workspace.root, ".local", "share", "opencode", "storage");
    writeOpencodeStorage(storage, { messages: 2 });
    const reads = readLog(storage, path.join(workspace.root, "reads.log"));
    const list = async () => {
      const listed = await runCli(["sessions", "list", "--all", "--json"], {
        cwd: workspace.cwd,
        env: { ...env, ...reads.env },
      });
      expect(listed.code, listed.stderr).toBe(0);
      return JSON.parse(listed.stdout) as { id: string; eventCount: number }[];
    };
    expect((await cli(["import", "--auto", "on"])).code).toBe(0);
    const first = await list();
    expect(first).toHaveLength(1);

    writeOpencodeStorage(storage, { sessionId: "ses_other", messages: 1 });
    const added = await list();
    expect(added).toHaveLength(2);

    addOpencodeStorageMessages(storage, sampleId, 2, 3);
    reads.clear();
    const grown = await list();
    // Appended, not forked: still two sessions, the first one longer.
    expect(grown).toHaveLength(2);
    const before = first[0]!;
    const after = grown.find((session) => session.id === before.id);
    expect(after?.eventCount).toBeGreaterThan(before.eventCount);
    // Only the grown session's files were read: none of the other session's.
    expect(reads.opened().length).toBeGreaterThan(0);
    expect(reads.opened().filter((file) => file.includes("ses_other"))).toEqual([]);

    reads.clear();
    expect(await list()).toEqual(grown);
    expect(reads.opened()).toEqual([]);
  });

  it("appends to a session imported while opencode was streaming its reply, once the reply is done", async () => {
    const { workspace, cli } = await cliContext();
    const storage = path.join(workspace.root, ".local", "share", "opencode", "storage");
    writeOpencodeStorage(storage);
    // The last reply as opencode leaves it mid-stream: the message not completed, its text part
    // started and half written, no step-finish yet.
    const last = opencodeSample.messages.at(-1)! as unknown as {
      info: { id: string; time: { created: number; completed?: number } };
      parts: { id: string; type: string; text?: string; time?: { start: number } }[];
    };
    const messageFile = path.join(storage, "message", sampleId, `${last.info.id}.json`);
    const partsDir = path.join(storage, "part", last.info.id);
    const text = last.parts.find((part) => part.type === "text")!;
    const finish = last.parts.find((part) => part.type === "step-finish")!;
    writeStorageFile(messageFile, {
      ...last.info,
      sessionID: sampleId,
      time: { created: last.info.time.created },
    });
    writeStorageFile(path.join(partsDir, `${text.id}.json`), {
      ...text,
      text: text.text!.slice(0, 20),
      time: { start: text.time!.start },
    });
    rmSync(path.join(partsDir, `${finish.id}.json`));
    expect((await cli(["import", "--auto", "on"])).code).toBe(0);
    const list = () => listSessions(cli);
    const streaming = await list();
    expect(streaming).toHaveLength(1);
    // opencode ends the text (rewritten in place), adds the step's end and completes the message.
    writeStorageFile(path.join(partsDir, `${text.id}.json`), text);
    writeStorageFile(path.join(partsDir, `${finish.id}.json`), finish);
    writeStorageFile(messageFile, { ...last.info, sessionID: sampleId });
    const done = await list();
    expect(done).toHaveLength(1);
    expect(done[0]!.id).toBe(streaming[0]!.id);
    expect(done[0]!.eventCount).toBeGreaterThan(streaming[0]!.eventCount);
    const shown = await cli(["sessions", "show", done[0]!.id]);
    expect(shown.stdout).toContain(text.text!);
  });

  it("watches the storage folder and lists a damaged part file it skipped", async () => {
    const { workspace, cli } = await cliContext();
    const storage = path.join(workspace.root, ".local", "share", "opencode", "storage");
    writeOpencodeStorage(storage, { messages: 2 });
    const damaged = path.join(storage, "part", storageMessageId(sampleId, 1), "prt_zzz.json");
    writeStorageFile(damaged, "{broken");
    let grown = false;
    let stopped = false;
    const watched = await cli(["import", "--watch", "--interval", "0.2"], undefined, {
      onStdout: (stdout, child) => {
        if (!grown && stdout.includes("1 created")) {
          // After the first look: opencode writes the next message; a later look appends it.
          grown = true;
          addOpencodeStorageMessages(storage, sampleId, 2, 3);
        } else if (!stopped && stdout.includes("1 appended")) {
          stopped = true;
          child.kill("SIGINT");
        }
      },
      // Under the test's own timeout, so a watch that never sees the change is stopped with it.
      timeoutMs: 20_000,
    });
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toContain(`skipped ${damaged}: not JSON`);
    expect(watched.stdout).toContain("sessions: 1 created, 0 appended, 0 forked, 0 unchanged");
    expect(watched.stdout).toContain("sessions: 0 created, 1 appended, 0 forked, 0 unchanged");
  });
});
