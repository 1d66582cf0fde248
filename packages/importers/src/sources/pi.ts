/**
 * pi sessions (`~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl`), versions 1–3.
 * Format: badlogic/pi-mono `packages/coding-agent/docs/session.md` and `session-manager.ts`.
 */
import { z } from "zod";
import { DraftBuilder, isoTime } from "../draft-builder";
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
  type SourceFile,
  stringField,
} from "./common";
import { appendOnlyTreeSessions, buildTree, type TreeNode } from "./entry-tree";
import { inlineImages } from "./images";

const entrySchema = z.looseObject({
  type: z.string(),
  id: z.string().optional(),
  parentId: z.string().nullish(),
  timestamp: z.union([z.string(), z.number()]).optional(),
});
type Entry = z.infer<typeof entrySchema>;

type Node = TreeNode<Entry>;

/**
 * Converts one pi session file. v1 files are linear; v2/v3 files are a tree (`id`/`parentId`)
 * that pi only appends to: the session follows the first child of every entry, and every later
 * child (a branch `/tree` started) starts a session of its own (`origin.sessionId` =
 * `<id>#<first entry id>`), a fork by reference of the session it branched from at the last turn
 * they share. A re-import after a branch switch thus finds every session it wrote (same origin
 * ids, each only grown) and writes only the new branch (see `appendOnlyTreeSessions`). A file forked from another
 * (header `parentSession`) is a fork by reference of that file's session, matched by content.
 */
export function convertPi(file: SourceFile): Conversion {
  const skipped: SkippedLine[] = [];
  // Entries as the source wrote them (no zod copy per line): pi's are never serialised whole.
  const parsed = parseEntries(file, entrySchema, "pi session", skipped, { asIs: true });
  const headerEntry = parsed[0]?.value.type === "session" ? parsed[0] : undefined;
  const recognised =
    headerEntry !== undefined ||
    parsed.some(
      (entry) =>
        entry.value.type === "message" && isRecord((entry.value as { message?: unknown }).message),
    );
  if (parsed.length > 0 && !recognised) return notTheFormat(file.path, "pi session");
  const header: Record<string, unknown> = headerEntry?.value ?? {};
  const sessionId = stringField(header, "id") ?? baseName(file.path).replace(/^.*_/, "");
  const key: SourceKey = { tool: "pi", sessionId };
  const createdAt =
    isoTime(header.timestamp) ?? isoTime(parsed[1]?.value.timestamp) ?? new Date(0).toISOString();
  const cwd = stringField(header, "cwd") ?? "/";
  const nodes = buildTree(
    parsed.filter((entry) => entry !== headerEntry),
    {
      id: (entry) => entry.id,
      parentId: (entry) => entry.parentId ?? undefined,
    },
  );
  const sessions: ConvertedSession[] = [];
  // pi rewrites a v1 file as v3 when it opens it, with new random ids on every entry.
  const base = { path: file.path, cwd, createdAt, idsMayBeAdded: true as const };
  // A file pi wrote by forking another (`/fork`: the path to an entry, copied with its ids and
  // times) names that file: the session forks its session where they still say the same.
  const parentFile = stringField(header, "parentSession");
  const parent: Partial<ConvertedSession> =
    parentFile === undefined || parentFile === ""
      ? {}
      : {
          forkOf: { tool: "pi", sessionId: baseName(parentFile).replace(/^.*_/, "") },
          forkMatch: "content",
        };
  for (const tree of appendOnlyTreeSessions(key, nodes)) {
    const converted = convertPath(tree.key, key, tree.nodes, createdAt, header);
    if (converted.events.length === 0) continue;
    sessions.push({
      ...base,
      key: tree.key,
      events: converted.events,
      ...(converted.blobs === undefined ? {} : { blobs: converted.blobs }),
      ...(tree.forkOf === undefined ? parent : { forkOf: tree.forkOf }),
      ...converted.title,
    });
  }
  return { sessions, skipped, entries: parsed.length };
}

function convertPath(
  key: SourceKey,
  trunk: SourceKey,
  path: Node[],
  createdAt: string,
  header: Record<string, unknown>,
): Pick<ConvertedSession, "events" | "blobs"> & { title: { title?: string } } {
  const builder = new DraftBuilder(
    key,
    createdAt,
    modelOf(header.provider, header.modelId) ?? "pi:unknown",
    trunk,
  );
  const seqOfId = new Map<string, number>();
  const seqOfIndex = new Map<number, number>();
  let title: string | undefined;
  for (const node of path) {
    const seq = builder.nextSeq;
    seqOfId.set(node.id, seq);
    seqOfIndex.set(node.index, seq);
    const entry = node.entry as Record<string, unknown> & Entry;
    builder.at(entry.timestamp);
    const source = entry.id === undefined ? {} : { entryId: entry.id };
    switch (entry.type) {
      case "message":
        if (isRecord(entry.message)) convertMessage(builder, entry.message, source);
        break;
      case "compaction": {
        const keptId = stringField(entry, "firstKeptEntryId");
        const keptIndex =
          typeof entry.firstKeptEntryIndex === "number" ? entry.firstKeptEntryIndex : undefined;
        const keepFromSeq =
          keptId !== undefined
            ? seqOfId.get(keptId)
            : keptIndex !== undefined
              ? seqOfIndex.get(keptIndex)
              : undefined;
        builder.compaction(
          stringField(entry, "summary") ?? "",
          keepFromSeq === undefined ? {} : { keepFromSeq },
          source,
        );
        break;
      }
      case "branch_summary":
        builder.extension("branch-summary", stringField(entry, "summary") ?? "", {
          ...source,
          fromId: entry.fromId,
        });
        break;
      case "model_change":
        builder.setModel(modelOf(entry.provider, entry.modelId));
        builder.extension(
          "model-change",
          `${stringField(entry, "provider") ?? ""}:${stringField(entry, "modelId") ?? ""}`,
          source,
        );
        break;
      case "session_info":
        title = stringField(entry, "name") ?? title;
        builder.extension("session-info", title ?? "", source);
        break;
      default:
        builder.extension(
          entry.type.replace(/_/g, "-"),
          excerpt(blocksText(entry.content ?? entry.data ?? entry.label ?? ""), 4000),
          source,
        );
    }
  }
  return {
    events: builder.finish(),
    ...(builder.blobs.size === 0 ? {} : { blobs: builder.blobs }),
    title: title === undefined ? {} : { title },
  };
}

/** pi's tool call: `toolCall` with `arguments` as an object (or, rarely, JSON text). */
const piToolCall = {
  type: "toolCall",
  args: (block: Record<string, unknown>) =>
    typeof block.arguments === "string" ? block.arguments : json(block.arguments ?? {}),
};

function modelOf(provider: unknown, model: unknown): string | undefined {
  if (typeof model !== "string" || model === "") return undefined;
  return `${typeof provider === "string" && provider !== "" ? provider : "pi"}:${model}`;
}

function convertMessage(
  builder: DraftBuilder,
  message: Record<string, unknown>,
  source: Record<string, unknown>,
): void {
  const role = stringField(message, "role");
  switch (role) {
    case "user": {
      const text = blocksText(message.content);
      if (text.trim() !== "")
        builder.userPrompt(text, { ...source, ...builder.attach(inlineImages(message.content)) });
      return;
    }
    case "assistant": {
      builder.setModel(modelOf(message.provider, message.model));
      const content = Array.isArray(message.content)
        ? message.content
        : [{ type: "text", text: blocksText(message.content) }];
      for (const block of content) {
        if (isRecord(block)) assistantBlock(builder, block, source, piToolCall);
      }
      const stop = stringField(message, "stopReason");
      if (stop === "aborted") builder.markTurn("cancelled");
      else if (stop === "error")
        builder.markTurn("failed", stringField(message, "errorMessage") ?? "error");
      return;
    }
    case "toolResult":
      builder.output(
        stringField(message, "toolCallId") ?? "",
        blocksText(message.content),
        message.isError === true,
        { ...source, ...builder.attach(inlineImages(message.content)) },
      );
      return;
    case "bashExecution": {
      const output = stringField(message, "output") ?? "";
      builder.extension("bash", `$ ${stringField(message, "command") ?? ""}\n${output}`, {
        ...source,
        exitCode: message.exitCode,
      });
      return;
    }
    default:
      builder.extension(
        role === "branchSummary" || role === "compactionSummary" ? "summary" : "message",
        blocksText(message.content ?? message.summary ?? ""),
        { ...source, role },
      );
  }
}
