import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import {
  capOutput,
  createRunCommandTool,
  editFileTool,
  listDirTool,
  PathOutsideWorkspaceError,
  readFileTool,
  resolveInWorkspace,
  searchFilesTool,
  writeFileTool,
} from "../src/index";
import { type ToolSandbox, toolSandbox } from "./helpers";

let box: ToolSandbox;
beforeEach(async () => {
  box = await toolSandbox();
});

describe("path confinement", () => {
  it("refuses .. and absolute paths outside the workspace, for reads and writes", async () => {
    await writeFile(path.join(box.root, "secret.txt"), "secret");
    await expect(box.run(readFileTool, { path: "../secret.txt" })).rejects.toThrow(
      PathOutsideWorkspaceError,
    );
    await expect(
      box.run(readFileTool, { path: path.join(box.root, "secret.txt") }),
    ).rejects.toThrow(/outside/);
    await expect(box.run(writeFileTool, { path: "../evil.txt", content: "x" })).rejects.toThrow(
      /outside/,
    );
    await expect(box.run(listDirTool, { path: ".." })).rejects.toThrow(/outside/);
  });

  it("allows names that merely start with two dots, inside the workspace", async () => {
    await writeFile(path.join(box.cwd, "..notes"), "dots");
    await expect(box.run(readFileTool, { path: "..notes" })).resolves.toContain("dots");
  });

  it("refuses a symlink that leads outside, for reads, writes and new files below it", async () => {
    await writeFile(path.join(box.root, "secret.txt"), "secret");
    await mkdir(path.join(box.root, "outside"));
    await symlink(path.join(box.root, "secret.txt"), path.join(box.cwd, "link.txt"));
    await symlink(path.join(box.root, "outside"), path.join(box.cwd, "linkdir"));
    await expect(box.run(readFileTool, { path: "link.txt" })).rejects.toThrow(/symlink/);
    await expect(box.run(writeFileTool, { path: "link.txt", content: "x" })).rejects.toThrow(
      /symlink/,
    );
    await expect(box.run(writeFileTool, { path: "linkdir/new.txt", content: "x" })).rejects.toThrow(
      /symlink/,
    );
    await expect(
      box.run(editFileTool, { path: "link.txt", oldText: "secret", newText: "x" }),
    ).rejects.toThrow(/symlink/);
    expect(await readFile(path.join(box.root, "secret.txt"), "utf8")).toBe("secret");
  });

  it("allows a symlink that stays inside", async () => {
    await writeFile(path.join(box.cwd, "real.txt"), "inside");
    await symlink(path.join(box.cwd, "real.txt"), path.join(box.cwd, "alias.txt"));
    expect(await box.run(readFileTool, { path: "alias.txt" })).toBe("inside");
    expect(await resolveInWorkspace(box.cwd, "sub/dir/new.txt")).toBe(
      path.join(box.cwd, "sub/dir/new.txt"),
    );
  });
});

describe("file tools", () => {
  it("write_file creates parents; read_file returns a line range", async () => {
    await box.run(writeFileTool, { path: "a/b/c.txt", content: "1\n2\n3\n4" });
    expect(await box.run(readFileTool, { path: "a/b/c.txt", offset: 2, limit: 2 })).toBe("2\n3");
  });

  it("edit_file replaces a unique text and refuses a missing or repeated one", async () => {
    await writeFile(path.join(box.cwd, "f.ts"), "let a = 1;\nlet b = 1;\n");
    await expect(
      box.run(editFileTool, { path: "f.ts", oldText: "= 1;", newText: "= 2;" }),
    ).rejects.toThrow(/occurs 2 times/);
    await expect(
      box.run(editFileTool, { path: "f.ts", oldText: "zzz", newText: "y" }),
    ).rejects.toThrow(/not found/);
    await box.run(editFileTool, { path: "f.ts", oldText: "let b = 1;", newText: "let b = $&2;" });
    expect(await readFile(path.join(box.cwd, "f.ts"), "utf8")).toBe("let a = 1;\nlet b = $&2;\n");
  });

  it("list_dir marks directories", async () => {
    await mkdir(path.join(box.cwd, "dir"));
    await writeFile(path.join(box.cwd, "file"), "");
    expect(await box.run(listDirTool, {})).toBe("dir/\nfile");
  });
});

describe("search_files", () => {
  it("finds regex matches and respects .gitignore (nested too)", async () => {
    await writeFile(path.join(box.cwd, ".gitignore"), "build/\n*.log\n");
    await mkdir(path.join(box.cwd, "build"));
    await mkdir(path.join(box.cwd, "src/gen"), { recursive: true });
    await writeFile(path.join(box.cwd, "src/.gitignore"), "gen/\n");
    await writeFile(path.join(box.cwd, "src/main.ts"), "const needle = 1;\n// needle again\n");
    await writeFile(path.join(box.cwd, "src/gen/out.ts"), "needle\n");
    await writeFile(path.join(box.cwd, "build/x.js"), "needle\n");
    await writeFile(path.join(box.cwd, "debug.log"), "needle\n");
    expect(await box.run(searchFilesTool, { pattern: "need+le" })).toBe(
      "src/main.ts:1: const needle = 1;\nsrc/main.ts:2: // needle again",
    );
    await expect(box.run(searchFilesTool, { pattern: "(" })).rejects.toThrow(
      /Invalid regular expression/,
    );
  });
});

describe("run_command", () => {
  it("reports exit code and output; non-zero exit is an error", async () => {
    const tool = createRunCommandTool();
    expect(await box.run(tool, { command: "echo hi; echo err >&2" })).toBe(
      "exit code 0\nhi\nerr\n",
    );
    await expect(box.run(tool, { command: "exit 3" })).rejects.toThrow(/exit code 3/);
  });

  it("does not hand the agent's API key to commands", async () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = "sk-secret-test";
    try {
      const output = await box.run(createRunCommandTool({ env: { EXTRA: "yes" } }), {
        command: 'test -z "$OPENAI_API_KEY" && echo "key=none extra=$EXTRA"',
      });
      expect(output).toBe("exit code 0\nkey=none extra=yes\n");
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  it("caps long output and says how much was cut", async () => {
    const tool = createRunCommandTool({ outputCap: 100 });
    const output = await box.run(tool, { command: "seq 1 10000" });
    expect(output.length).toBeLessThan(250);
    expect(output).toMatch(/output truncated: \d+ of 48894 characters cut/);
    expect(output.trimEnd().endsWith("10000")).toBe(true);
  });

  it("kills the command at its timeout", async () => {
    const started = Date.now();
    await expect(
      box.run(createRunCommandTool(), { command: "sleep 30", timeoutSeconds: 1 }),
    ).rejects.toThrow(/timed out after 1s/);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe("capOutput", () => {
  it("keeps head and tail with a note", () => {
    const capped = capOutput("a".repeat(50) + "b".repeat(50), 20);
    expect(capped).toMatch(/^a{14}\n\[… output truncated: 80 of 100 characters cut …\]\nb{6}$/);
  });
});
