import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { link, mkdir, readFile, symlink, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import {
  editFileTool,
  listDirTool,
  readFileTool,
  searchFilesTool,
  writeFileTool,
} from "../src/index";
import { type ToolSandbox, toolSandbox } from "./helpers";

let box: ToolSandbox;
beforeEach(async () => {
  box = await toolSandbox();
});

describe("writes never escape the workspace (issue #11 item 2)", () => {
  it.each([
    ["absolute", (root: string) => path.join(root, "outside", "new.txt")],
    ["relative", () => "../outside/new.txt"],
  ])(
    "a dangling %s symlink is refused, nothing created, the target not named",
    async (_kind, target) => {
      await mkdir(path.join(box.root, "outside"));
      await symlink(target(box.root), path.join(box.cwd, "dangle"));
      const attempt = box.run(writeFileTool, { path: "dangle", content: "pwned" });
      await expect(attempt).rejects.toThrow(/leads through a symlink out of the workspace/);
      await expect(attempt).rejects.not.toThrow(/outside[/\\]new\.txt/);
      expect(existsSync(path.join(box.root, "outside", "new.txt"))).toBe(false);
    },
  );

  it("a dangling link in a parent directory is refused too", async () => {
    await symlink(path.join(box.root, "elsewhere"), path.join(box.cwd, "dir"));
    await expect(box.run(writeFileTool, { path: "dir/new.txt", content: "x" })).rejects.toThrow(
      /symlink out of the workspace/,
    );
    expect(existsSync(path.join(box.root, "elsewhere"))).toBe(false);
  });

  it("a chain of links that ends outside is refused; one that stays inside writes its target", async () => {
    await symlink("b", path.join(box.cwd, "a"));
    await symlink("../escaped.txt", path.join(box.cwd, "b"));
    await expect(box.run(writeFileTool, { path: "a", content: "x" })).rejects.toThrow(/symlink/);
    await symlink("inside.txt", path.join(box.cwd, "alias"));
    await box.run(writeFileTool, { path: "alias", content: "ok" });
    expect(await readFile(path.join(box.cwd, "inside.txt"), "utf8")).toBe("ok");
  });

  it("a file with several hard links is not written through", async () => {
    await writeFile(path.join(box.root, "victim.txt"), "original");
    await link(path.join(box.root, "victim.txt"), path.join(box.cwd, "hard.txt"));
    await expect(box.run(writeFileTool, { path: "hard.txt", content: "pwned" })).rejects.toThrow(
      /hard links/,
    );
    await expect(
      box.run(editFileTool, { path: "hard.txt", oldText: "original", newText: "pwned" }),
    ).rejects.toThrow(/hard links/);
    expect(await readFile(path.join(box.root, "victim.txt"), "utf8")).toBe("original");
  });
});

describe("non-regular and huge files (issue #11 item 6)", () => {
  it("read_file of a FIFO is refused at once instead of hanging", async () => {
    execFileSync("mkfifo", [path.join(box.cwd, "pipe")]);
    await expect(box.run(readFileTool, { path: "pipe" })).rejects.toThrow(/not a regular file/);
    await expect(box.run(writeFileTool, { path: "pipe", content: "x" })).rejects.toThrow(
      /not a regular file/,
    );
  });

  it("read_file of a device is refused", async () => {
    await symlink("/dev/zero", path.join(box.cwd, "zero"));
    await expect(box.run(readFileTool, { path: "zero" })).rejects.toThrow(
      /symlink out of|not a regular/,
    );
  });

  it("a 300 MB file is not loaded: read_file says how to read parts of it", async () => {
    await writeFile(path.join(box.cwd, "big.log"), "");
    await truncate(path.join(box.cwd, "big.log"), 300 * 1024 * 1024);
    await expect(box.run(readFileTool, { path: "big.log" })).rejects.toThrow(
      /314572800 bytes, more than the 8388608 file tools read/,
    );
  });
});

describe("tools never touch the Tapedeck home inside the workspace (issue #11 item 3)", () => {
  beforeEach(async () => {
    const home = path.join(box.cwd, ".tapedeck");
    await mkdir(path.join(home, "sessions"), { recursive: true });
    await writeFile(path.join(home, "sessions", "other.jsonl"), '{"secret":"other workspace"}\n');
    await writeFile(path.join(box.cwd, "notes.txt"), "secret notes of mine\n");
    box.context = { ...box.context, privateRoots: [home] };
  });

  it("read_file, list_dir, write_file and edit_file refuse the home", async () => {
    const attempts = [
      () => box.run(readFileTool, { path: ".tapedeck/sessions/other.jsonl" }),
      () => box.run(listDirTool, { path: ".tapedeck/sessions" }),
      () => box.run(writeFileTool, { path: ".tapedeck/sessions/other.jsonl", content: "x" }),
      () =>
        box.run(editFileTool, {
          path: "./.tapedeck/sessions/../sessions/other.jsonl",
          oldText: "other",
          newText: "x",
        }),
    ];
    for (const attempt of attempts) {
      await expect(attempt()).rejects.toThrow(/lies in the Tapedeck home/);
    }
  });

  it("a link to the home is refused like the home", async () => {
    await symlink(path.join(box.cwd, ".tapedeck"), path.join(box.cwd, "history"));
    await expect(box.run(readFileTool, { path: "history/sessions/other.jsonl" })).rejects.toThrow(
      /Tapedeck home/,
    );
  });

  it("search_files does not search the home", async () => {
    const hits = await box.run(searchFilesTool, { pattern: "secret" });
    expect(hits).toBe("notes.txt:1: secret notes of mine");
  });
});
