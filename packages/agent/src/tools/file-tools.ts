import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { lazySchema } from "@tapedeck/session";
import { z } from "zod";
import { type Confinement, resolveInWorkspace } from "../workspace-fs";
import { type AgentTool, type ToolContext, ToolError } from "./agent-tool";

const readFileArgs = lazySchema(() =>
  z.object({
    path: z.string().min(1).describe("File path, relative to the workspace root."),
    offset: z.number().int().min(1).optional().describe("First line to return (1-based)."),
    limit: z.number().int().min(1).optional().describe("Maximum number of lines to return."),
  }),
);

/** `read_file`: a text file of the workspace, optionally a range of lines. */
export const readFileTool: AgentTool<z.infer<ReturnType<typeof readFileArgs>>> = {
  name: "read_file",
  description:
    "Read a text file of the workspace. Use offset/limit (1-based lines) for large files.",
  access: "read",
  kind: "read",
  // Built on first use: importing the tools (as every command does) builds no schema.
  get argsSchema() {
    return readFileArgs();
  },
  title: (args) => `Read ${args.path}`,
  locations: (args) => [args.path],
  async execute(args, context) {
    const { text } = await readWorkspaceText(context, args.path);
    if (args.offset === undefined && args.limit === undefined) return text;
    const lines = text.split("\n");
    const start = (args.offset ?? 1) - 1;
    const end = args.limit === undefined ? lines.length : start + args.limit;
    return lines.slice(start, end).join("\n");
  },
};

const listDirArgs = lazySchema(() =>
  z.object({
    path: z.string().default(".").describe("Directory, relative to the workspace root."),
  }),
);

/** `list_dir`: the entries of a directory, directories marked with a trailing `/`. */
export const listDirTool: AgentTool<z.infer<ReturnType<typeof listDirArgs>>> = {
  name: "list_dir",
  description: "List a directory of the workspace. Directories end with '/'.",
  access: "read",
  kind: "read",
  // Built on first use: importing the tools (as every command does) builds no schema.
  get argsSchema() {
    return listDirArgs();
  },
  title: (args) => `List ${args.path}`,
  locations: (args) => [args.path],
  async execute(args, context) {
    const absolute = await confine(context, args.path);
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(absolute, { withFileTypes: true });
    } catch (error) {
      throw new ToolError(`Cannot list ${args.path}: ${(error as Error).message}`);
    }
    const names = entries
      .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
      .sort((a, b) => a.localeCompare(b));
    return names.length === 0 ? "(empty directory)" : names.join("\n");
  },
};

const writeFileArgs = lazySchema(() =>
  z.object({
    path: z.string().min(1).describe("File path, relative to the workspace root."),
    content: z.string().describe("The complete new content of the file."),
  }),
);

/** `write_file`: creates or replaces a file (parents created). */
export const writeFileTool: AgentTool<z.infer<ReturnType<typeof writeFileArgs>>> = {
  name: "write_file",
  description: "Create or overwrite a text file in the workspace with the given content.",
  access: "write",
  kind: "edit",
  // Built on first use: importing the tools (as every command does) builds no schema.
  get argsSchema() {
    return writeFileArgs();
  },
  title: (args) => `Write ${args.path}`,
  locations: (args) => [args.path],
  describeChange: (args) => `content ${JSON.stringify(args.content)}`,
  async execute(args, context) {
    const absolute = await confine(context, args.path);
    const existing = await stat(absolute).catch(() => undefined);
    if (existing?.isDirectory()) throw new ToolError(`${args.path} is a directory.`);
    try {
      await context.fs.writeTextFile(absolute, args.content, confinement(context));
    } catch (error) {
      throw new ToolError(`Cannot write ${args.path}: ${(error as Error).message}`);
    }
    return `Wrote ${Buffer.byteLength(args.content)} bytes to ${args.path}.`;
  },
};

const editFileArgs = lazySchema(() =>
  z.object({
    path: z.string().min(1).describe("File path, relative to the workspace root."),
    oldText: z.string().min(1).describe("Exact text to replace; must occur exactly once."),
    newText: z.string().describe("Replacement text."),
  }),
);

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  let index = haystack.indexOf(needle);
  while (index !== -1) {
    count += 1;
    index = haystack.indexOf(needle, index + needle.length);
  }
  return count;
}

/** `edit_file`: replaces one exact, unique occurrence of a text. */
export const editFileTool: AgentTool<z.infer<ReturnType<typeof editFileArgs>>> = {
  name: "edit_file",
  description:
    "Replace an exact text in a file. oldText must occur exactly once; include surrounding lines to make it unique.",
  access: "write",
  kind: "edit",
  // Built on first use: importing the tools (as every command does) builds no schema.
  get argsSchema() {
    return editFileArgs();
  },
  title: (args) => `Edit ${args.path}`,
  locations: (args) => [args.path],
  describeChange: (args) =>
    `replace ${JSON.stringify(args.oldText)} with ${JSON.stringify(args.newText)}`,
  async execute(args, context) {
    const { absolute, text } = await readWorkspaceText(context, args.path);
    const count = countOccurrences(text, args.oldText);
    if (count === 0) throw new ToolError(`oldText was not found in ${args.path}.`);
    if (count > 1) {
      throw new ToolError(
        `oldText occurs ${count} times in ${args.path}; include more surrounding text so it is unique.`,
      );
    }
    const index = text.indexOf(args.oldText);
    const next = text.slice(0, index) + args.newText + text.slice(index + args.oldText.length);
    try {
      await context.fs.writeTextFile(absolute, next, confinement(context));
    } catch (error) {
      throw new ToolError(`Cannot write ${args.path}: ${(error as Error).message}`);
    }
    return `Edited ${args.path}: replaced ${args.oldText.split("\n").length} line(s).`;
  },
};

/** Workspace-relative form of an absolute path inside `cwd`. */
export function relativeToWorkspace(cwd: string, absolute: string): string {
  return path.relative(cwd, absolute) || ".";
}

/** Reads a workspace file for a tool (confined to the workspace; a failure names the path). */
async function readWorkspaceText(
  context: ToolContext,
  requested: string,
): Promise<{ absolute: string; text: string }> {
  const absolute = await confine(context, requested);
  try {
    return { absolute, text: await context.fs.readTextFile(absolute, confinement(context)) };
  } catch (error) {
    throw new ToolError(`Cannot read ${requested}: ${(error as Error).message}`);
  }
}

function confinement(context: ToolContext): Confinement {
  return { root: context.cwd, privateRoots: context.privateRoots ?? [] };
}

/** A tool's path argument resolved in the workspace, outside the home (see `resolveInWorkspace`). */
export function confine(context: ToolContext, requested: string): Promise<string> {
  return resolveInWorkspace(context.cwd, requested, { privateRoots: context.privateRoots ?? [] });
}
