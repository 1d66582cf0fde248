import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { convertClaudeCode } from "./sources/claude-code";
import { convertCodex } from "./sources/codex";
import { fileOf } from "./sources/test-lines";
import { writeConverted } from "./write-session";

/** A small "PNG" (the bytes only matter as bytes) and its base64. */
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(3000, 7)]);
const shot = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(5000, 9)]);
const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex");

const sid = "11111111-2222-3333-4444-666666666666";
let clock = 0;
function entry(type: string, fields: Record<string, unknown>): Record<string, unknown> {
  clock += 1;
  return {
    type,
    uuid: `img-${clock}`,
    sessionId: sid,
    cwd: "/home/me/project",
    isSidechain: false,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, clock)).toISOString(),
    ...fields,
  };
}
const claudeImage = (data: Buffer) => ({
  type: "image",
  source: { type: "base64", media_type: "image/png", data: data.toString("base64") },
});

/** The same source every call (uuids and times from a clock reset here). */
function claudeFile() {
  clock = 0;
  return fileOf("/p/img.jsonl", [
    entry("user", {
      message: {
        role: "user",
        content: [{ type: "text", text: "what is this?" }, claudeImage(png)],
      },
    }),
    entry("assistant", {
      message: {
        id: "m1",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "tool_use", id: "toolu_1", name: "Screenshot", input: {} }],
      },
    }),
    entry("user", {
      message: {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: [{ type: "text", text: "taken" }, claudeImage(shot)],
          },
        ],
      },
    }),
  ]);
}

function setup() {
  const root = testTempDir("tapedeck-import-images-");
  return createSessionStore({ home: join(root, "home") });
}

describe("inline images on import", () => {
  it("Claude Code image blocks (a prompt's, a tool result's) become blobs listed as attachments; the text the model is sent is unchanged", async () => {
    const store = setup();
    const [converted] = convertClaudeCode(claudeFile()).sessions;
    const outcome = await writeConverted(store, converted!);
    const { events } = await store.readSession(outcome.sessionId);
    const prompt = events.find((event) => event.type === "message" && event.role === "user");
    expect(prompt).toMatchObject({
      content: "what is this?\n[image]",
      attachments: [
        { blob: sha(png), bytes: png.length, mediaType: "image/png", preview: expect.any(String) },
      ],
    });
    const output = events.find((event) => event.type === "function_call_output");
    expect(output).toMatchObject({
      output: "taken\n[image]",
      attachments: [{ blob: sha(shot), bytes: shot.length, mediaType: "image/png" }],
    });
    expect(store.readBlob(sha(png)).equals(png)).toBe(true);
    expect(store.readBlob(sha(shot)).equals(shot)).toBe(true);
    // The log line holds the reference, not the base64.
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(store.pathOf(outcome.sessionId), "utf8")).not.toContain(
      png.toString("base64").slice(0, 100),
    );
    // Importing the same source again changes nothing.
    const again = await writeConverted(store, convertClaudeCode(claudeFile()).sessions[0]!);
    expect(again).toMatchObject({ action: "unchanged", sessionId: outcome.sessionId });
  });

  it("a session imported before images were kept (no attachments) is not forked when imported again", async () => {
    const store = setup();
    const [converted] = convertClaudeCode(claudeFile()).sessions;
    const without = converted!.events.map((event) => {
      const { attachments: _dropped, ...rest } = event as typeof event & { attachments?: unknown };
      return rest as typeof event;
    });
    const { blobs: _blobs, ...rest } = converted!;
    const first = await writeConverted(store, { ...rest, events: without });
    const again = await writeConverted(store, convertClaudeCode(claudeFile()).sessions[0]!);
    expect(again).toMatchObject({ action: "unchanged", sessionId: first.sessionId });
    expect((await store.list()).length).toBe(1);
  });

  it("Codex input_image data URLs become blobs listed as attachments", async () => {
    const store = setup();
    const line = (second: number, type: string, payload: unknown) => ({
      timestamp: new Date(Date.UTC(2025, 11, 28, 12, 0, second)).toISOString(),
      type,
      payload,
    });
    const file = fileOf("/c/rollout-img.jsonl", [
      line(0, "session_meta", {
        id: "019b64e5-57fa-7463-b644-fba7e456f999",
        timestamp: "2025-12-28T12:00:00.000Z",
        cwd: "/work/app",
      }),
      line(1, "response_item", {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "see the screenshot" },
          { type: "input_image", image_url: `data:image/png;base64,${png.toString("base64")}` },
        ],
      }),
    ]);
    const [converted] = convertCodex(file).sessions;
    const outcome = await writeConverted(store, converted!);
    const { events } = await store.readSession(outcome.sessionId);
    expect(events.find((event) => event.type === "message")).toMatchObject({
      content: "see the screenshot\n[image]",
      attachments: [{ blob: sha(png), bytes: png.length, mediaType: "image/png" }],
    });
    expect(store.readBlob(sha(png)).equals(png)).toBe(true);
  });

  it("a Codex tool output over the blob threshold goes to a blob on import, created or appended; reads give the exact text", async () => {
    const store = setup();
    const line = (second: number, type: string, payload: unknown) => ({
      timestamp: new Date(Date.UTC(2025, 11, 28, 12, 0, second)).toISOString(),
      type,
      payload,
    });
    const build = (seed: string) =>
      `${Array.from({ length: 2500 }, (_, index) => `[${seed} ${index}] cc -c src/m${index}.c`).join("\n")}\n`;
    const [first, second] = [build("first"), build("second")];
    const turn = (at: number, callId: string, output: string) => [
      line(at, "response_item", {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: `build ${callId}` }],
      }),
      line(at + 1, "response_item", {
        type: "function_call",
        name: "shell",
        arguments: '{"command":["make"]}',
        call_id: callId,
      }),
      line(at + 2, "response_item", { type: "function_call_output", call_id: callId, output }),
      line(at + 3, "response_item", {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: `built ${callId}` }],
      }),
    ];
    const meta = line(0, "session_meta", {
      id: "019b64e5-57fa-7463-b644-fba7e456f998",
      timestamp: "2025-12-28T12:00:00.000Z",
      cwd: "/work/app",
    });
    const outputs = async (sessionId: string) =>
      (await store.readSession(sessionId)).events
        .filter((event) => event.type === "function_call_output")
        .map((event) => (event as { output: string }).output);
    const created = await writeConverted(
      store,
      convertCodex(fileOf("/c/rollout-big.jsonl", [meta, ...turn(1, "call_1", first)]))
        .sessions[0]!,
    );
    expect(created.action).toBe("created");
    const grown = await writeConverted(
      store,
      convertCodex(
        fileOf("/c/rollout-big.jsonl", [
          meta,
          ...turn(1, "call_1", first),
          ...turn(5, "call_2", second),
        ]),
      ).sessions[0]!,
    );
    expect(grown).toMatchObject({ action: "appended", sessionId: created.sessionId });
    const log = readFileSync(store.pathOf(created.sessionId), "utf8");
    expect(log.length).toBeLessThan(first.length);
    for (const text of [first, second]) {
      expect(store.readBlob(sha(Buffer.from(text))).toString("utf8")).toBe(text);
      expect(log).toContain(`"blob":"${sha(Buffer.from(text))}"`);
    }
    expect(await outputs(created.sessionId)).toEqual([first, second]);
  });
});
