import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { lazySchema } from "@tapedeck/session";
import ignore, { type Ignore } from "ignore";
import { z } from "zod";
import { privatePathTest } from "../workspace-fs";
import { type AgentTool, ToolError } from "./agent-tool";
import { DEFAULT_SEARCH_TIMEOUT_MS, RegexStopped, RegexWorker } from "./regex-worker";

/** `TAPEDECK_SEARCH_TIMEOUT_MS` when it is a positive number, else the default (10 s). */
function searchTimeoutMs(): number {
  const value = Number(process.env.TAPEDECK_SEARCH_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_SEARCH_TIMEOUT_MS;
}

import { confine } from "./file-tools";

const searchArgs = lazySchema(() =>
  z.object({
    pattern: z.string().min(1).describe("JavaScript regular expression to search for."),
    path: z.string().default(".").describe("Directory to search, relative to the workspace root."),
    ignoreCase: z.boolean().default(false),
    maxResults: z.number().int().min(1).max(1000).default(200),
  }),
);

const MAX_FILE_BYTES = 1_000_000;

interface IgnoreScope {
  base: string;
  rules: Ignore;
}

async function loadIgnore(directory: string): Promise<Ignore | undefined> {
  try {
    const text = await readFile(path.join(directory, ".gitignore"), "utf8");
    return ignore().add(text);
  } catch {
    return undefined;
  }
}

function ignored(scopes: readonly IgnoreScope[], absolute: string, isDirectory: boolean): boolean {
  for (const scope of scopes) {
    const relative = path.relative(scope.base, absolute).split(path.sep).join("/");
    if (relative === "" || relative === ".." || relative.startsWith("../")) continue;
    if (scope.rules.ignores(isDirectory ? `${relative}/` : relative)) return true;
  }
  return false;
}

/**
 * Files under `start`, skipping `.git`, `node_modules` and whatever the `.gitignore` files from
 * the workspace root down say. Symlinks are not followed.
 */
async function* walk(
  root: string,
  start: string,
  privateRoots: readonly string[],
): AsyncGenerator<string> {
  const isPrivate = await privatePathTest(privateRoots);
  const scopes: IgnoreScope[] = [];
  // .gitignore files between the root and the start directory apply too.
  let cursor = root;
  const chain = path.relative(root, start).split(path.sep).filter(Boolean);
  for (let index = 0; index <= chain.length; index += 1) {
    if (index > 0) cursor = path.join(cursor, chain[index - 1] ?? "");
    if (cursor === start) break;
    const rules = await loadIgnore(cursor);
    if (rules) scopes.push({ base: cursor, rules });
  }
  async function* visit(directory: string, inherited: IgnoreScope[]): AsyncGenerator<string> {
    const rules = await loadIgnore(directory);
    const active = rules ? [...inherited, { base: directory, rules }] : inherited;
    const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (entry.name === ".git" || entry.name === "node_modules") continue;
      const absolute = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        if (isPrivate(absolute)) continue;
        if (!ignored(active, absolute, true)) yield* visit(absolute, active);
      } else if (entry.isFile() && !ignored(active, absolute, false)) {
        yield absolute;
      }
    }
  }
  yield* visit(start, scopes);
}

/** `search_files`: a regex over the workspace's text files, respecting `.gitignore`. */
export const searchFilesTool: AgentTool<z.infer<ReturnType<typeof searchArgs>>> = {
  name: "search_files",
  description:
    "Search the workspace's files for a regular expression (respects .gitignore). Returns path:line: text.",
  access: "read",
  kind: "search",
  // Built on first use: importing the tools (as every command does) builds no schema.
  get argsSchema() {
    return searchArgs();
  },
  title: (args) =>
    `Search ${JSON.stringify(args.pattern)}${args.path === "." ? "" : ` in ${args.path}`}`,
  locations: (args) => [args.path],
  async execute(args, context) {
    let regex: RegExp;
    try {
      regex = new RegExp(args.pattern, args.ignoreCase ? "i" : "");
    } catch (error) {
      throw new ToolError(`Invalid regular expression: ${(error as Error).message}`);
    }
    const root = path.resolve(context.cwd);
    const start = await confine(context, args.path);
    const info = await stat(start).catch(() => undefined);
    if (!info?.isDirectory()) throw new ToolError(`${args.path} is not a directory.`);
    const hits: string[] = [];
    let truncated = false;
    const timeoutMs = searchTimeoutMs();
    const matcher = new RegexWorker(regex.source, regex.flags, timeoutMs, context.signal);
    let current = "";
    try {
      for await (const file of walk(root, start, context.privateRoots ?? [])) {
        if (context.signal.aborted) throw new ToolError("Search cancelled.");
        const size = (await stat(file).catch(() => undefined))?.size ?? 0;
        if (size > MAX_FILE_BYTES) continue;
        const buffer = await readFile(file).catch(() => undefined);
        if (buffer === undefined || buffer.includes(0)) continue;
        current = path.relative(root, file).split(path.sep).join("/");
        const found = await matcher.match(buffer.toString("utf8"), args.maxResults - hits.length);
        for (const [line, text] of found) {
          hits.push(`${current}:${line}: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`);
        }
        if (hits.length >= args.maxResults) {
          truncated = true;
          break;
        }
      }
    } catch (error) {
      if (!(error instanceof RegexStopped)) throw error;
      if (error.reason === "cancelled") throw new ToolError("Search cancelled.");
      throw new ToolError(
        `Search stopped after ${timeoutMs / 1000} s in ${current}: the pattern is too slow (nested quantifiers such as (a+)+ backtrack exponentially); simplify it.${
          hits.length > 0 ? `\nMatches before it stopped:\n${hits.join("\n")}` : ""
        }`,
      );
    } finally {
      await matcher.close();
    }
    if (hits.length === 0) return "No matches.";
    return truncated
      ? `${hits.join("\n")}\n[stopped after ${args.maxResults} matches]`
      : hits.join("\n");
  },
};
