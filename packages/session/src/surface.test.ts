import { describe, expect, it } from "vitest";
import { matchSurface, type SurfaceItem } from "./surface";

const items: SurfaceItem[] = [
  { type: "message", role: "user", content: "hi" },
  { type: "function_call", callId: "c1", name: "read_file", arguments: "{}" },
  { type: "function_call_output", callId: "c1", output: "text", isError: false },
  { type: "compaction", summary: "earlier work" },
];

describe("matchSurface", () => {
  it("hands each surface item to the case of its own type, narrowed", () => {
    const described = items.map((item) =>
      matchSurface<SurfaceItem, string>(item, {
        message: (message) => `${message.role}: ${message.content}`,
        function_call: (call) => `${call.name}(${call.arguments})`,
        function_call_output: (output) => `${output.callId} -> ${output.output}`,
        compaction: (compaction) => `summary: ${compaction.summary}`,
      }),
    );
    expect(described).toEqual(["user: hi", "read_file({})", "c1 -> text", "summary: earlier work"]);
  });
});
