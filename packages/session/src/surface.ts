import type {
  CompactionEvent,
  FunctionCallEvent,
  FunctionCallOutputEvent,
  MessageEvent,
  SessionEvent,
} from "./schema";

/** A message as the model sees it. */
export interface MessageItem {
  type: "message";
  role: MessageEvent["role"];
  content: string;
}

/** A tool call as the model sees it; `arguments` is JSON text. */
export interface FunctionCallItem {
  type: "function_call";
  callId: string;
  name: string;
  arguments: string;
}

/** A tool output as the model sees it. */
export interface FunctionCallOutputItem {
  type: "function_call_output";
  callId: string;
  output: string;
  isError: boolean;
}

/** A compaction summary standing in for the items it replaced. */
export interface CompactionItem {
  type: "compaction";
  summary: string;
}

/** One model-visible history item. */
export type SurfaceItem = MessageItem | FunctionCallItem | FunctionCallOutputItem | CompactionItem;

/** A surface item with the seq of the event that produced it. */
export interface SurfaceEntry {
  seq: number;
  item: SurfaceItem;
}

/** The event types that produce surface items. */
export type SurfaceEvent =
  | MessageEvent
  | FunctionCallEvent
  | FunctionCallOutputEvent
  | CompactionEvent;

/** True when the event is a surface item. */
export function isSurfaceEvent(event: SessionEvent): event is SurfaceEvent {
  return (
    event.type === "message" ||
    event.type === "function_call" ||
    event.type === "function_call_output" ||
    event.type === "compaction"
  );
}

/** The four surface types: what a surface item or a surface event can be. */
export type SurfaceType = SurfaceItem["type"];

/**
 * One function per surface type, each given the value narrowed to that type. What every mapping
 * of surface items (or surface events) writes instead of its own `switch`: the set of types is
 * fixed here, so a type added to the surface is a type error in every mapping at once.
 */
export type SurfaceCases<Value extends { type: SurfaceType }, Result> = {
  [Type in SurfaceType]: (value: Extract<Value, { type: Type }>) => Result;
};

/** Maps a surface item or surface event through the case of its type. */
export function matchSurface<Value extends { type: SurfaceType }, Result>(
  value: Value,
  cases: SurfaceCases<Value, Result>,
): Result {
  return (cases[value.type] as (value: Value) => Result)(value);
}

/**
 * The model-visible item of a surface event (volatile fields dropped); of a surface item, a copy
 * with only the item's own fields.
 */
export function toSurfaceItem(event: SurfaceEvent | SurfaceItem): SurfaceItem {
  return matchSurface<SurfaceEvent | SurfaceItem, SurfaceItem>(event, {
    message: (message) => ({ type: "message", role: message.role, content: message.content }),
    function_call: (call) => ({
      type: "function_call",
      callId: call.callId,
      name: call.name,
      arguments: call.arguments,
    }),
    function_call_output: (output) => ({
      type: "function_call_output",
      callId: output.callId,
      output: output.output,
      isError: output.isError,
    }),
    compaction: (compaction) => ({ type: "compaction", summary: compaction.summary }),
  });
}
