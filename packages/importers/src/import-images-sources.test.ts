import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { convertGemini } from "./sources/gemini";
import { convertGeminiCheckpoint } from "./sources/gemini-checkpoint";
import { convertOpencode } from "./sources/opencode";
import { convertPi } from "./sources/pi";
import { fileOf } from "./sources/test-lines";
import type { ConvertedSession } from "./types";
import { writeConverted } from "./write-session";

/** Two small "PNG"s and a "PDF" (the bytes only matter as bytes). */
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(3000, 7)]);
const shot = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(5000, 9)]);
const pdf = Buffer.from("%PDF-1.4 not an image");
const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const b64 = (data: Buffer) => data.toString("base64");

/** Writes `converted` to a new home; its events read back, the store and the log's text. */
async function imported(converted: ConvertedSession | undefined) {
  const store = createSessionStore({ home: join(testTempDir("tapedeck-images-src-"), "home") });
  const outcome = await writeConverted(store, converted!);
  const { events } = await store.readSession(outcome.sessionId);
  return { store, events, log: readFileSync(store.pathOf(outcome.sessionId), "utf8") };
}

const piLine = (id: string, parentId: string | null, message: Record<string, unknown>) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2025-12-24T00:33:00.000Z",
  message: { timestamp: 1766536380000, ...message },
});

const piFile = (withImages: boolean) =>
  fileOf("/p/2025-12-24_img.jsonl", [
    {
      type: "session",
      version: 3,
      id: "2638daee-0588-4baa-bd33-68b4c0028999",
      timestamp: "2025-12-24T00:32:27.967Z",
      cwd: "/Users/me/project",
    },
    piLine("u1", null, {
      role: "user",
      content: [
        { type: "text", text: "what is this?" },
        { type: "image", data: withImages ? b64(png) : "", mimeType: "image/png" },
      ],
    }),
    piLine("a1", "u1", {
      role: "assistant",
      content: [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "s.png" } }],
      provider: "anthropic",
      model: "claude-opus-4-5",
      stopReason: "toolUse",
    }),
    piLine("t1", "a1", {
      role: "toolResult",
      toolCallId: "call_1",
      toolName: "read",
      content: [
        { type: "text", text: "Read image file [image/png]" },
        { type: "image", data: withImages ? b64(shot) : "", mimeType: "image/png" },
      ],
      isError: false,
    }),
  ]);

const ocPart = (id: string, type: string, fields: Record<string, unknown>) => ({
  id,
  sessionID: "ses_img",
  messageID: "m",
  type,
  ...fields,
});

const opencodeDocument = (withImages: boolean) => ({
  info: { id: "ses_img", directory: "/home/me/app", time: { created: 1780154575515 } },
  messages: [
    {
      info: { id: "msg_u", sessionID: "ses_img", role: "user", time: { created: 1780154575515 } },
      parts: [
        ocPart("p1", "text", { text: "see these" }),
        ocPart("p2", "file", {
          mime: "image/png",
          filename: "shot.png",
          url: withImages ? `data:image/png;base64,${b64(png)}` : "file:///tmp/shot.png",
        }),
        ocPart("p3", "file", {
          mime: "application/pdf",
          filename: "spec.pdf",
          url: `data:application/pdf;base64,${b64(pdf)}`,
        }),
      ],
    },
    {
      info: {
        id: "msg_a",
        sessionID: "ses_img",
        role: "assistant",
        time: { created: 1780154575600 },
        modelID: "deepseek-v4-pro",
        providerID: "opencode-go",
      },
      parts: [
        ocPart("p4", "tool", {
          callID: "call_1",
          tool: "read",
          state: {
            status: "completed",
            input: { filePath: "/home/me/app/s.png" },
            output: "Image read successfully",
            ...(withImages
              ? {
                  attachments: [
                    ocPart("p5", "file", {
                      mime: "image/png",
                      url: `data:image/png;base64,${b64(shot)}`,
                    }),
                  ],
                }
              : {}),
          },
        }),
      ],
    },
  ],
});

const geminiChat = (withImages: boolean) => ({
  sessionId: "6f9a0d3e-1111-2222-3333-444444444999",
  projectHash: "abc",
  startTime: "2026-01-01T00:00:00.000Z",
  messages: [
    {
      id: "m1",
      type: "user",
      timestamp: "2026-01-01T00:00:01.000Z",
      content: [
        { text: "what is on screen?" },
        ...(withImages ? [{ inlineData: { mimeType: "image/png", data: b64(png) } }] : []),
        { inlineData: { mimeType: "application/pdf", data: b64(pdf) } },
      ],
    },
    {
      id: "m2",
      type: "gemini",
      timestamp: "2026-01-01T00:00:02.000Z",
      model: "gemini-2.5-pro",
      content: "",
      toolCalls: [
        {
          id: "read-1",
          name: "read_file",
          args: { absolute_path: "/w/s.png" },
          status: "success",
          result: [
            {
              functionResponse: {
                id: "read-1",
                name: "read_file",
                response: { output: "Binary content provided (1 item)." },
                ...(withImages
                  ? { parts: [{ inlineData: { mimeType: "image/png", data: b64(shot) } }] }
                  : {}),
              },
            },
          ],
        },
      ],
    },
  ],
});

/** A Gemini CLI checkpoint (`/chat save`): the model's own `Content` history. */
const geminiCheckpoint = (withImages: boolean) => [
  {
    role: "user",
    parts: [
      { text: "what is on screen?" },
      { inlineData: { mimeType: "image/png", data: withImages ? b64(png) : "" } },
    ],
  },
  { role: "model", parts: [{ functionCall: { id: "r1", name: "read_file", args: {} } }] },
  {
    role: "user",
    parts: [
      {
        functionResponse: {
          id: "r1",
          name: "read_file",
          response: { output: "Binary content provided (1 item)." },
          parts: [{ inlineData: { mimeType: "image/png", data: withImages ? b64(shot) : "" } }],
        },
      },
    ],
  },
];

/** The events with `attachments` dropped: what the model is sent (and the log held before). */
const withoutAttachments = (events: readonly object[]) =>
  events.map((event) => {
    const { attachments: _dropped, ...rest } = event as { attachments?: unknown };
    return rest;
  });

describe("inline images on import (pi, opencode, Gemini CLI)", () => {
  it("pi image parts (a prompt's, a tool result's) become blobs listed as attachments; the text is unchanged", async () => {
    const { store, events, log } = await imported(convertPi(piFile(true)).sessions[0]);
    expect(events.find((event) => event.type === "message")).toMatchObject({
      content: "what is this?\n[image]",
      attachments: [{ blob: sha(png), bytes: png.length, mediaType: "image/png" }],
    });
    expect(events.find((event) => event.type === "function_call_output")).toMatchObject({
      output: "Read image file [image/png]\n[image]",
      attachments: [{ blob: sha(shot), bytes: shot.length, mediaType: "image/png" }],
    });
    expect(store.readBlob(sha(png)).equals(png)).toBe(true);
    expect(store.readBlob(sha(shot)).equals(shot)).toBe(true);
    expect(log).not.toContain(b64(png).slice(0, 100));
  });

  it("opencode image file parts with a data URL (a prompt's, a tool's attachments) become blobs; a PDF does not; the text is unchanged", async () => {
    const [converted] = convertOpencode(opencodeDocument(true), "/o/ses_img.json").sessions;
    const { store, events, log } = await imported(converted);
    expect(events.find((event) => event.type === "message")).toMatchObject({
      content: "see these\n[file: shot.png]\n[file: spec.pdf]",
      attachments: [{ blob: sha(png), bytes: png.length, mediaType: "image/png" }],
    });
    expect(events.find((event) => event.type === "function_call_output")).toMatchObject({
      output: "Image read successfully",
      attachments: [{ blob: sha(shot), bytes: shot.length, mediaType: "image/png" }],
    });
    expect(store.readBlob(sha(shot)).equals(shot)).toBe(true);
    expect(() => store.readBlob(sha(pdf))).toThrow();
    expect(log).not.toContain(b64(shot).slice(0, 100));
  });

  it("Gemini CLI inlineData images (a prompt's, inside a functionResponse) become blobs; a PDF does not; the text is unchanged", async () => {
    const [converted] = convertGemini(geminiChat(true), "/g/abc/chats/session-1.json").sessions;
    const { store, events } = await imported(converted);
    expect(events.find((event) => event.type === "message")).toMatchObject({
      content: "what is on screen?",
      attachments: [{ blob: sha(png), bytes: png.length, mediaType: "image/png" }],
    });
    expect(events.find((event) => event.type === "function_call_output")).toMatchObject({
      output: "Binary content provided (1 item).",
      attachments: [{ blob: sha(shot), bytes: shot.length, mediaType: "image/png" }],
    });
    expect(store.readBlob(sha(png)).equals(png)).toBe(true);
    expect(() => store.readBlob(sha(pdf))).toThrow();
  });

  it("Gemini CLI checkpoint inlineData images (a prompt's, a functionResponse's) become blobs; the text is unchanged", async () => {
    const path = "/g/abc/checkpoint-shot.json";
    const [converted] = convertGeminiCheckpoint(
      geminiCheckpoint(true),
      path,
      "2026-01-01T00:00:00.000Z",
    ).sessions;
    const { store, events } = await imported(converted);
    expect(events.find((event) => event.type === "message")).toMatchObject({
      content: "what is on screen?\n[file: image/png]",
      attachments: [{ blob: sha(png), bytes: png.length, mediaType: "image/png" }],
    });
    expect(events.find((event) => event.type === "function_call_output")).toMatchObject({
      output: "Binary content provided (1 item).",
      attachments: [{ blob: sha(shot), bytes: shot.length, mediaType: "image/png" }],
    });
    expect(store.readBlob(sha(shot)).equals(shot)).toBe(true);
  });

  it("each source's events apart from attachments are what the same source without images converts to", () => {
    const pairs: [ConvertedSession | undefined, ConvertedSession | undefined][] = [
      [convertPi(piFile(true)).sessions[0], convertPi(piFile(false)).sessions[0]],
      [
        convertOpencode(opencodeDocument(true), "/o/s.json").sessions[0],
        convertOpencode(opencodeDocument(false), "/o/s.json").sessions[0],
      ],
      [
        convertGemini(geminiChat(true), "/g/a/chats/s.json").sessions[0],
        convertGemini(geminiChat(false), "/g/a/chats/s.json").sessions[0],
      ],
      [
        convertGeminiCheckpoint(
          geminiCheckpoint(true),
          "/g/a/checkpoint-s.json",
          "2026-01-01T00:00:00.000Z",
        ).sessions[0],
        convertGeminiCheckpoint(
          geminiCheckpoint(false),
          "/g/a/checkpoint-s.json",
          "2026-01-01T00:00:00.000Z",
        ).sessions[0],
      ],
    ];
    for (const [withImages, without] of pairs) {
      expect(withImages!.blobs?.size).toBe(2);
      expect(without!.blobs).toBeUndefined();
      expect(withoutAttachments(withImages!.events)).toEqual(withoutAttachments(without!.events));
    }
  });
});
