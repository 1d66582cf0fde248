/**
 * Converting only the entries appended to a Claude Code transcript: from the state kept after
 * the entries converted before ({@link convertClaudeCodeKeeping}), the entries that followed give
 * the events a conversion of the whole file has after the old ones. Only a transcript that is one
 * session without sidechains or sub-agents keeps a state (a chain, or one whose side entries are
 * results of parallel tool calls, in file order), and it stays resumable only while the new
 * entries keep it one session (`one-session.ts`): a typed prompt must hang below the last one.
 * Anything else (a second branch, a sidechain, an id met again) returns `undefined`, and the
 * caller converts the whole file.
 */
import { z } from "zod";
import { DraftBuilder } from "../draft-builder";
import { draftStateSchema } from "../draft-state";
import type { Conversion, ConvertedSession, SkippedLine } from "../types";
import {
  type ChainEnd,
  claudeTree,
  convertClaudeCodeInto,
  convertEntry,
  entrySchema,
  ignoredTypes,
  opensBranch,
  type TypedCommand,
} from "./claude-code";
import { parseEntries, type SourceFile } from "./common";
import { placeEntry } from "./one-session";

const claudeCodeStateSchema = z.object({
  draft: draftStateSchema,
  createdAt: z.string(),
  cwd: z.string(),
  title: z.string().optional(),
  command: z.object({ text: z.string(), uuid: z.string().optional() }).optional(),
  /** The entries' node ids in file order (the last is the one before the next) and the uuids seen. */
  ids: z.array(z.string()).min(1),
  uuids: z.array(z.string()),
  /** Where they sit (`one-session.ts`): the subtree of the last typed prompt, and whether one was. */
  turn: z.array(z.string()),
  prompted: z.boolean(),
});

/** A Claude Code conversion's state after some entries (plain JSON). */
export type ClaudeCodeState = z.infer<typeof claudeCodeStateSchema>;

/** `value` as a {@link ClaudeCodeState}, or `undefined` when it is not one of this version. */
export function parseClaudeCodeState(value: unknown): ClaudeCodeState | undefined {
  const parsed = claudeCodeStateSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** A conversion and the state to go on from after it (`undefined`: not resumable). */
export interface ClaudeCodeConversion {
  conversion: Conversion;
  state(): ClaudeCodeState | undefined;
}

/** Converts a transcript as `convertClaudeCode` does, keeping the state to continue from. */
export function convertClaudeCodeKeeping(
  main: SourceFile,
  subagents: readonly SourceFile[] = [],
): ClaudeCodeConversion {
  const end: ChainEnd = {};
  const conversion = convertClaudeCodeInto(
    main,
    subagents,
    subagents.length === 0 ? end : undefined,
  );
  return { conversion, state: () => stateOf(end) };
}

function stateOf(end: ChainEnd): ClaudeCodeState | undefined {
  const { builder, ids, uuids, cwd, createdAt, turn, prompted } = end;
  if (builder === undefined || ids === undefined || uuids === undefined) return undefined;
  if (turn === undefined || prompted === undefined) return undefined;
  if (end.settled !== true || end.sessionIdFromEntry !== true || ids.length === 0) return undefined;
  if (cwd === undefined || createdAt === undefined) return undefined;
  return {
    draft: builder.state(),
    createdAt,
    cwd,
    ...(end.title === undefined ? {} : { title: end.title }),
    ...(end.command === undefined
      ? {}
      : {
          command: {
            text: end.command.text,
            ...(end.command.uuid === undefined ? {} : { uuid: end.command.uuid }),
          },
        }),
    ids: [...ids],
    uuids: [...uuids],
    turn: [...turn],
    prompted,
  };
}

/**
 * Converts the entries that followed the ones `state` was taken after (`file` holds only those,
 * with their line numbers in the whole file). `undefined` when the whole file is no longer one
 * session (or not one this state can tell).
 */
export function resumeClaudeCode(
  state: ClaudeCodeState,
  file: SourceFile,
): ClaudeCodeConversion | undefined {
  const skipped: SkippedLine[] = [];
  const read = parseEntries(file, entrySchema, "Claude Code", skipped);
  const uuids = new Set(state.uuids);
  const known = new Set(state.ids);
  const ids = [...state.ids];
  const placement = { prompted: state.prompted, turn: new Set(state.turn) };
  const entries = [];
  for (const { value, line } of read) {
    // A uuid met before: dropped, as the whole file's conversion drops it.
    if (value.uuid !== undefined) {
      if (uuids.has(value.uuid)) continue;
      uuids.add(value.uuid);
    }
    if (value.isSidechain === true) return undefined;
    const own = claudeTree.id(value);
    const id = own ?? `line-${line}`;
    const previous = ids.at(-1);
    const parent = own === undefined ? previous : claudeTree.parentId(value, known, previous);
    if (known.has(id) || !placeEntry(placement, id, parent, opensBranch(value))) return undefined;
    known.add(id);
    ids.push(id);
    entries.push(value);
  }
  const builder = DraftBuilder.resume(state.draft);
  let title = state.title;
  let command: TypedCommand | undefined =
    state.command === undefined
      ? undefined
      : { text: state.command.text, uuid: state.command.uuid };
  for (const value of entries) {
    builder.at(value.timestamp);
    if (value.type === "summary" && value.summary !== undefined) title = value.summary;
    if (ignoredTypes.has(value.type)) continue;
    command = convertEntry(builder, value, command);
  }
  const events = builder.finish();
  const session: ConvertedSession = {
    key: builder.key,
    path: file.path,
    cwd: state.cwd,
    createdAt: state.createdAt,
    events,
    ...(builder.blobs.size === 0 ? {} : { blobs: builder.blobs }),
    ...(title === undefined ? {} : { title }),
  };
  const end: ChainEnd = {
    builder,
    title,
    command,
    cwd: state.cwd,
    createdAt: state.createdAt,
    settled: true,
    sessionIdFromEntry: true,
    ids,
    uuids: [...uuids],
    turn: [...placement.turn],
    prompted: placement.prompted,
  };
  return {
    conversion: {
      sessions: events.length === 0 ? [] : [session],
      skipped,
      entries: entries.length,
    },
    state: () => stateOf(end),
  };
}
