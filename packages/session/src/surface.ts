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

/** The model-visible item of a surface event (volatile fields dropped). */
export function toSurfaceItem(event: SurfaceEvent): SurfaceItem {
  switch (event.type) {
    case "message":
      return { type: "message", role: event.role, content: event.content };
    case "function_call":
      return {
        type: "function_call",
        callId: event.callId,
        name: event.name,
        arguments: event.arguments,
      };
    case "function_call_output":
      return {
        type: "function_call_output",
        callId: event.callId,
        output: event.output,
        isError: event.isError,
      };
    case "compaction":
      return { type: "compaction", summary: event.summary };
  }
}
