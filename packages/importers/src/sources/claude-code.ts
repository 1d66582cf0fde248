/**
 * Claude Code transcripts (`~/.claude/projects/<cwd>/<sessionId>.jsonl`, with sub-agents in
 * `<sessionId>/subagents/agent-<id>.jsonl` or, in older versions, as `isSidechain` entries of the
 * same file). Format: daaain/claude-code-log `claude_code_log/models.py`.
 */
import { z } from "zod";
import { DraftBuilder, isoTime } from "../draft-builder";
import { importedSessionId } from "../ids";
import { parseJsonLine } from "../lines";
import type { Conversion, ConvertedSession, SkippedLine, SourceKey } from "../types";
import {
  assistantBlock,
  baseName,
  blocksText,
  excerpt,
  isRecord,
  json,
  notTheFormat,
  parseEntries,
  type SourceEntry,
  type SourceFile,
  stringField,
} from "./common";
import { appendOnlyTreeSessions, buildTree, type TreeNode, type TreeShape } from "./entry-tree";
import { inlineImages } from "./images";
import { emptyPlacement, placeEntry } from "./one-session";

/** A Claude Code transcript line, as read. */
export const entrySchema = z.looseObject({
  type: z.string(),
  uuid: z.string().optional(),
  parentUuid: z.string().nullish(),
  sessionId: z.string().optional(),
  timestamp: z.string().optional(),
  cwd: z.string().optional(),
  isSidechain: z.boolean().optional(),
  isMeta: z.boolean().optional(),
  isCompactSummary: z.boolean().optional(),
  agentId: z.string().optional(),
  subtype: z.string().optional(),
  content: z.unknown().optional(),
  summary: z.string().optional(),
  leafUuid: z.string().optional(),
  logicalParentUuid: z.string().nullish(),
  message: z.unknown().optional(),
});
/** One entry of {@link entrySchema}. */
export type Entry = z.infer<typeof entrySchema>;

/** Entry types that are bookkeeping, not conversation: read and deliberately not imported. */
export const ignoredTypes = new Set(["file-history-snapshot", "progress", "queue-operation"]);

/** How Claude Code records that the person stopped a turn. */
const interruptPrefix = "[Request interrupted by user";

/** Text that Claude Code writes for slash commands and their output. */
const commandPattern =
  /<command-name>|<command-message>|<local-command-stdout>|<local-command-stderr>/;

/**
 * True for a slash command or its output. The regex runs only on text holding "command-" (a
 * plain string search): a long pasted prompt is not scanned by the alternation.
 */
function isCommandText(text: string): boolean {
  return text.includes("command-") && commandPattern.test(text);
}

/**
 * Converts one Claude Code transcript and its sub-agent transcripts. The main conversation is
 * one session; every sub-agent (a `subagents/` file or a chain of `isSidechain` entries) is its
 * own session (`origin.sessionId` = `<sessionId>/<agent>`) linked from the parent by an
 * `x-claude-code-subagent` event placed where the sub-agent started. An edited message or a
 * rewind (a prompt whose `parentUuid` points back into the tree) starts a session of its own
 * (`<sessionId>#<its uuid>`), a fork by reference of the one it parted from; the file being
 * append-only, a re-import finds every session it wrote and appends only what is new (see
 * `appendOnlyTreeSessions`).
 */
export function convertClaudeCode(
  main: SourceFile,
  subagents: readonly SourceFile[] = [],
): Conversion {
  return convertClaudeCodeInto(main, subagents, undefined);
}

/**
 * {@link convertClaudeCode}, filling `kept` with where the main session's conversion ended when the
 * file is one session without sidechains or sub-agents: a chain, or one whose only side entries
 * are results of parallel tool calls (what `claude-code-resume.ts` continues).
 */
export function convertClaudeCodeInto(
  main: SourceFile,
  subagents: readonly SourceFile[],
  kept: ChainEnd | undefined,
): Conversion {
  const skipped: SkippedLine[] = [];
  const entries = dedupe(parseEntries(main, entrySchema, "Claude Code", skipped));
  if (entries.length > 0 && !entries.some((entry) => isClaudeEntry(entry.value))) {
    return notTheFormat(main.path, "Claude Code transcript");
  }
  const mainEntries = entries.filter((entry) => entry.value.isSidechain !== true);
  const sessionId =
    entries.find((entry) => entry.value.sessionId !== undefined)?.value.sessionId ??
    baseName(main.path);
  const key: SourceKey = { tool: "claude-code", sessionId };
  const sessions: ConvertedSession[] = [];
  const children: ConvertedSession[] = [];
  let count = entries.length;

  if (mainEntries.length === 0) {
    // A sub-agent transcript read on its own: the whole file is the session.
    const agent = entries.find((entry) => entry.value.agentId !== undefined)?.value.agentId;
    const own = convertChain(
      agent === undefined ? key : { tool: "claude-code", sessionId: `${sessionId}/agent-${agent}` },
      main.path,
      entries.map((entry) => entry.value),
      [],
    );
    if (own !== undefined) sessions.push(own);
    return { sessions, skipped, entries: count };
  }

  for (const chain of sidechains(entries)) {
    const childKey: SourceKey = { tool: "claude-code", sessionId: `${sessionId}/${chain.name}` };
    const child = convertChain(
      childKey,
      main.path,
      chain.entries.map((entry) => entry.value),
      [],
      key,
    );
    if (child !== undefined) children.push(child);
  }
  for (const file of subagents) {
    const childEntries = dedupe(parseEntries(file, entrySchema, "Claude Code", skipped));
    count += childEntries.length;
    const childKey: SourceKey = {
      tool: "claude-code",
      sessionId: `${sessionId}/${baseName(file.path)}`,
    };
    const child = convertChain(
      childKey,
      file.path,
      childEntries.map((entry) => entry.value),
      [],
      key,
    );
    if (child !== undefined) children.push(child);
  }
  const nodes = buildTree(mainEntries, claudeTree);
  const trees = appendOnlyTreeSessions(key, nodes, opensBranch);
  const keep =
    kept !== undefined &&
    children.length === 0 &&
    mainEntries.length === entries.length &&
    trees.length === 1 &&
    trees[0]!.nodes.length === nodes.length &&
    keepPlacement(kept, nodes);
  if (keep) {
    kept.sessionIdFromEntry = entries.some((entry) => entry.value.sessionId !== undefined);
    kept.uuids = entries.flatMap((entry) =>
      entry.value.uuid === undefined ? [] : [entry.value.uuid],
    );
    kept.entries = count;
  }
  for (const tree of trees) {
    // A branch links the sub-agents that started before it parted from the main session.
    const parted = isoTime(tree.divergence?.entry.timestamp);
    const links =
      tree.forkOf === undefined
        ? children
        : children.filter((child) => parted !== undefined && child.createdAt <= parted);
    const entries = tree.nodes.map((node) => node.entry);
    const end = keep && tree.forkOf === undefined ? kept : undefined;
    const converted = convertChain(tree.key, main.path, entries, links, undefined, key, end);
    if (converted === undefined) continue;
    sessions.push(tree.forkOf === undefined ? converted : { ...converted, forkOf: tree.forkOf });
  }
  const trunk = sessions.find((session) => session.forkOf === undefined);
  if (trunk !== undefined) linkSpawners(trunk, children);
  sessions.push(...children);
  return { sessions, skipped, entries: count };
}

/**
 * Fills `kept` with the entries' ids and where they sit ({@link placeEntry}), entry by entry as a
 * resume places the appended ones; false when the placement says the tree is more than one session
 * or an id repeats (the whole file is converted again then).
 */
function keepPlacement(kept: ChainEnd, nodes: readonly TreeNode<Entry>[]): boolean {
  const placement = emptyPlacement();
  const ids = new Set<string>();
  for (const node of nodes) {
    if (ids.has(node.id)) return false;
    ids.add(node.id);
    if (!placeEntry(placement, node.id, node.parentId, opensBranch(node.entry))) return false;
  }
  kept.ids = nodes.map((node) => node.id);
  kept.turn = [...placement.turn];
  kept.prompted = placement.prompted;
  return true;
}

/** Claude Code's tools that start a sub-agent (`Task`; `Agent` in later versions). */
const spawningTools = new Set(["Task", "Agent"]);

/**
 * Sets each sub-agent's `spawnedBy`: the call of `parent` that started it. The sub-agent's first
 * prompt is the call's `prompt`; parallel calls with the same prompt go in order; a sub-agent no
 * prompt matches takes the last call not taken that was made before it started. Only calls
 * written before the sub-agent's first entry are candidates in either case, so a file that grows
 * links each sub-agent as before.
 */
function linkSpawners(parent: ConvertedSession, children: readonly ConvertedSession[]): void {
  const parentId = importedSessionId(parent.key, parent.createdAt);
  const calls = parent.events.flatMap((event, index) => {
    if (event.type !== "function_call" || !spawningTools.has(event.name)) return [];
    const input = parseArguments(event.arguments);
    const prompt = typeof input?.prompt === "string" ? input.prompt : undefined;
    return [{ seq: index + 1, callId: event.callId, ts: event.ts, prompt }];
  });
  const taken = new Set<number>();
  const ordered = [...children].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  for (const child of ordered) {
    const first = child.events.find((event) => event.type === "message" && event.role === "user");
    const prompt = first !== undefined && "content" in first ? first.content : undefined;
    const before = calls.filter((call) => !taken.has(call.seq) && call.ts <= child.createdAt);
    const call = before.find((candidate) => candidate.prompt === prompt) ?? before.at(-1);
    if (call === undefined) continue;
    taken.add(call.seq);
    child.spawnedBy = { sessionId: parentId, seq: call.seq, callId: call.callId };
  }
}

/** A call's `arguments` (the JSON this converter wrote from the source's `input`) as an object. */
function parseArguments(text: string): Record<string, unknown> | undefined {
  const parsed = parseJsonLine({ text, line: 0, offset: 0 }, "");
  return parsed.ok && isRecord(parsed.value) ? parsed.value : undefined;
}

/**
 * The `parentUuid` chain as a tree. A parent that is not in the file (a sidechain, a skipped
 * line) or missing after the first entry (`compact_boundary` names its `logicalParentUuid`)
 * falls back to the entry before, as file order always did.
 */
/** How entries name themselves and their parents. */
export const claudeTree: TreeShape<Entry> = {
  id: (entry) => entry.uuid,
  parentId: (entry, known, previous) => {
    if (typeof entry.parentUuid === "string" && known.has(entry.parentUuid))
      return entry.parentUuid;
    if (typeof entry.logicalParentUuid === "string" && known.has(entry.logicalParentUuid))
      return entry.logicalParentUuid;
    return previous;
  },
};

/**
 * Only a prompt typed again starts a branch: an edited and resent message (or a rewind) gives
 * its entry the parent of the one it replaces. Results of parallel tool calls also hang from
 * their own calls, and those stay in the session they belong to.
 */
export function opensBranch(entry: Entry): boolean {
  if (entry.type !== "user" || entry.isMeta === true || entry.isCompactSummary === true)
    return false;
  const text = promptText(isRecord(entry.message) ? entry.message.content : undefined);
  return (
    text !== undefined &&
    text.trim() !== "" &&
    !text.startsWith(interruptPrefix) &&
    !isCommandText(text)
  );
}

/** The text a person typed in a user entry's content (`undefined` for tool results only). */
function promptText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    else if (block.type === "image") texts.push("[image]");
  }
  return texts.length > 0 ? texts.join("\n") : undefined;
}

/** An entry only Claude Code writes: conversation entries carry `uuid` and `sessionId`. */
function isClaudeEntry(entry: Entry): boolean {
  if (entry.uuid !== undefined && entry.sessionId !== undefined) return true;
  return (
    (entry.type === "summary" && entry.leafUuid !== undefined) ||
    entry.type === "file-history-snapshot"
  );
}

/** Entries with a `uuid` seen before (a resumed session repeats them) are dropped. */
function dedupe(entries: SourceEntry<Entry>[]): SourceEntry<Entry>[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const uuid = entry.value.uuid;
    if (uuid === undefined) return true;
    if (seen.has(uuid)) return false;
    seen.add(uuid);
    return true;
  });
}

/** In-file sidechains, grouped by the first entry of each chain. */
function sidechains(
  entries: SourceEntry<Entry>[],
): { name: string; entries: SourceEntry<Entry>[] }[] {
  const rootOf = new Map<string, string>();
  const groups = new Map<string, SourceEntry<Entry>[]>();
  for (const entry of entries) {
    if (entry.value.isSidechain !== true) continue;
    const parent = entry.value.parentUuid;
    const root =
      (parent !== undefined && parent !== null ? rootOf.get(parent) : undefined) ??
      entry.value.agentId ??
      entry.value.uuid ??
      `line-${entry.line}`;
    if (entry.value.uuid !== undefined) rootOf.set(entry.value.uuid, root);
    const group = groups.get(root) ?? [];
    group.push(entry);
    groups.set(root, group);
  }
  return [...groups].map(([root, group]) => ({ name: `sidechain-${root}`, entries: group }));
}

/**
 * One session from a list of entries; `undefined` when it holds nothing to import. A branch
 * passes its main session as `runKey`, so the turns they share have the same run ids.
 */
function convertChain(
  key: SourceKey,
  path: string,
  entries: readonly Entry[],
  children: readonly ConvertedSession[],
  parentOf?: SourceKey,
  runKey: SourceKey = key,
  end?: ChainEnd,
): ConvertedSession | undefined {
  const first = entries.find((entry) => isoTime(entry.timestamp) !== undefined);
  if (first === undefined && entries.every((entry) => ignoredTypes.has(entry.type)))
    return undefined;
  const createdAt = isoTime(first?.timestamp) ?? new Date(0).toISOString();
  const cwd = entries.find((entry) => entry.cwd !== undefined)?.cwd ?? "/";
  const builder = new DraftBuilder(key, createdAt, undefined, runKey);
  const links = children
    .map((child) => ({ child, start: child.createdAt }))
    .sort((a, b) => a.start.localeCompare(b.start));
  let title: string | undefined;
  let command: TypedCommand | undefined;
  for (const value of entries) {
    const time = isoTime(value.timestamp);
    while (links.length > 0 && time !== undefined && links[0]!.start <= time) {
      link(builder, links.shift()!.child);
    }
    builder.at(value.timestamp);
    if (value.type === "summary" && value.summary !== undefined) title = value.summary;
    if (ignoredTypes.has(value.type)) continue;
    command = convertEntry(builder, value, command);
  }
  for (const { child } of links) link(builder, child);
  const events = builder.finish();
  if (events.length === 0) return undefined;
  if (end !== undefined) {
    end.builder = builder;
    end.title = title;
    end.command = command;
    end.cwd = cwd;
    end.createdAt = createdAt;
    end.settled = first !== undefined && entries.some((entry) => entry.cwd !== undefined);
  }
  return {
    key,
    path,
    cwd,
    createdAt,
    events,
    ...(builder.blobs.size === 0 ? {} : { blobs: builder.blobs }),
    ...(title === undefined ? {} : { title }),
    ...(parentOf === undefined ? {} : { parentOf }),
  };
}

function link(builder: DraftBuilder, child: ConvertedSession): void {
  const first = child.events.find((event) => event.type === "message");
  builder.extension(
    "subagent",
    excerpt(first !== undefined && "content" in first ? String(first.content) : ""),
    {
      sessionId: importedSessionId(child.key, child.createdAt),
      originSessionId: child.key.sessionId,
    },
  );
}

/**
 * Where the conversion of a one-session transcript ended (filled by {@link convertClaudeCodeInto}):
 * what converting the entries appended after it needs.
 */
export interface ChainEnd {
  builder?: DraftBuilder;
  title?: string | undefined;
  command?: TypedCommand | undefined;
  cwd?: string;
  createdAt?: string;
  /** True when the session's time and folder came from entries (a later one cannot change them). */
  settled?: boolean;
  /** True when the session id came from an entry, not the file's name. */
  sessionIdFromEntry?: boolean;
  /** The entries' node ids in file order (an entry without `uuid` is `line-<n>`), and their uuids. */
  ids?: string[];
  uuids?: string[];
  /** Where they sit: see `one-session.ts`. */
  turn?: string[];
  prompted?: boolean;
  /** Entries read. */
  entries?: number;
}

/** A slash command just typed, whose expansion (the next user entry) the model is sent. */
export interface TypedCommand {
  /** As typed: `/init`, `/orchestrator build it`. */
  text: string;
  /** The command entry's `uuid`: its expansion hangs from it. */
  uuid: string | undefined;
}

/**
 * Converts one entry; returns the slash command it typed, if any (its expansion is the next
 * entry). Decided from this entry and the one before only, so a file that grows converts to the
 * same prefix.
 */
export function convertEntry(
  builder: DraftBuilder,
  entry: Entry,
  command: TypedCommand | undefined,
): TypedCommand | undefined {
  const message = isRecord(entry.message) ? entry.message : undefined;
  const source = { uuid: entry.uuid };
  if (entry.type === "user") return convertUser(builder, entry, message?.content, source, command);
  convertOther(builder, entry, message, source);
  return undefined;
}

function convertOther(
  builder: DraftBuilder,
  entry: Entry,
  message: Record<string, unknown> | undefined,
  source: Record<string, unknown>,
): void {
  switch (entry.type) {
    case "assistant":
      convertAssistant(builder, message, source);
      return;
    case "system": {
      const text = typeof entry.content === "string" ? entry.content : "";
      const kind =
        entry.subtype === "compact_boundary"
          ? "compact-boundary"
          : entry.subtype === "local_command"
            ? "command"
            : "system";
      builder.extension(kind, text, {
        ...source,
        ...(entry.subtype === undefined ? {} : { subtype: entry.subtype }),
      });
      return;
    }
    case "summary":
      builder.extension("summary", entry.summary ?? "", { leafUuid: entry.leafUuid });
      return;
    default:
      if (ignoredTypes.has(entry.type)) return;
      builder.extension("entry", excerpt(json(entry.message ?? entry.content ?? ""), 4000), {
        ...source,
        entryType: entry.type,
      });
  }
}

function convertUser(
  builder: DraftBuilder,
  entry: Entry,
  content: unknown,
  source: Record<string, unknown>,
  command: TypedCommand | undefined,
): TypedCommand | undefined {
  if (entry.isCompactSummary === true) {
    builder.compaction(blocksText(content), {}, source);
    return undefined;
  }
  if (entry.isMeta === true) {
    const text = blocksText(content);
    if (command !== undefined && isExpansionOf(entry, command, text)) {
      // The prompt a slash command expanded to is what the model was sent: a user message,
      // marked with the command typed (which titles the session).
      builder.userPrompt(text, { ...source, command: command.text });
    } else builder.extension("meta", text, source);
    return undefined;
  }
  if (Array.isArray(content)) {
    for (const block of content) {
      if (!isRecord(block) || block.type !== "tool_result") continue;
      const callId = stringField(block, "tool_use_id") ?? "";
      builder.output(callId, blocksText(block.content), block.is_error === true, {
        ...source,
        ...builder.attach(inlineImages(block.content)),
      });
    }
  }
  const text = promptText(content);
  if (text === undefined) return undefined;
  // The prompt's own images (a tool result's are on its output).
  const own = Array.isArray(content)
    ? content.filter((block) => !isRecord(block) || block.type !== "tool_result")
    : [];
  return userText(builder, text, { ...source, ...builder.attach(inlineImages(own)) }, entry.uuid);
}

function userText(
  builder: DraftBuilder,
  text: string,
  source: Record<string, unknown>,
  uuid: string | undefined,
): TypedCommand | undefined {
  if (text.startsWith(interruptPrefix)) {
    builder.markTurn("cancelled");
    builder.extension("interrupt", text, source);
  } else if (isCommandText(text)) {
    builder.extension("command", text, source);
    const typed = typedCommand(text);
    if (typed !== undefined) return { text: typed, uuid };
  } else if (text.trim() !== "") {
    builder.userPrompt(text, source);
  }
  return undefined;
}

const commandName = /<command-name>\s*([^<]*?)\s*<\/command-name>/;
const commandArgs = /<command-args>([^<]*)<\/command-args>/;

/**
 * The command as typed (`/init`, `/orchestrator build it`) when the text records one that
 * expands to a prompt; `undefined` for a local command's output (`/model`, `/clear`: their
 * `<local-command-stdout>` follows, no prompt).
 */
function typedCommand(text: string): string | undefined {
  if (text.includes("<local-command-")) return undefined;
  const name = commandName.exec(text)?.[1];
  if (name === undefined || name === "") return undefined;
  const args = commandArgs.exec(text)?.[1]?.trim() ?? "";
  const typed = name.startsWith("/") ? name : `/${name}`;
  return args === "" ? typed : `${typed} ${args}`;
}

/**
 * True when an `isMeta` entry right after a command is its expansion: it hangs from the command
 * entry (when both name their ids) and is not the caveat Claude Code writes before local commands.
 */
function isExpansionOf(entry: Entry, command: TypedCommand, text: string): boolean {
  if (text.trim() === "" || text.startsWith("Caveat:")) return false;
  const parent = entry.parentUuid;
  return command.uuid === undefined || typeof parent !== "string" || parent === command.uuid;
}

/** Claude Code's tool call: `tool_use` with its `input` object. */
const claudeToolCall = {
  type: "tool_use",
  args: (block: Record<string, unknown>) => json(block.input ?? {}),
};

function convertAssistant(
  builder: DraftBuilder,
  message: Record<string, unknown> | undefined,
  source: Record<string, unknown>,
): void {
  if (message === undefined) return;
  const model = stringField(message, "model");
  if (model !== undefined && model !== "<synthetic>") builder.setModel(`anthropic:${model}`);
  const content = message.content;
  const blocks =
    typeof content === "string"
      ? [{ type: "text", text: content }]
      : Array.isArray(content)
        ? content
        : [];
  for (const block of blocks) {
    if (!isRecord(block) || assistantBlock(builder, block, source, claudeToolCall)) continue;
    if (block.type === "redacted_thinking") {
      builder.extension("thinking", "", { ...source, redacted: true });
    } else {
      builder.extension("block", excerpt(json(block), 4000), { ...source, blockType: block.type });
    }
  }
}
