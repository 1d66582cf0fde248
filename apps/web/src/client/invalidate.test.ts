import type { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { invalidateLists, invalidateSession } from "./invalidate";
import { createQueryClient } from "./query-client";

/** A client holding one fresh answer under each key. */
function clientWith(keys: readonly (readonly unknown[])[]): QueryClient {
  const client = createQueryClient();
  for (const key of keys) client.setQueryData(key, "answer");
  return client;
}

function stale(client: QueryClient, key: readonly unknown[]): boolean {
  return client.getQueryState(key)?.isInvalidated ?? false;
}

const keys = [
  ["sessions", { q: "" }, 0],
  ["events", { q: "tea" }, 2],
  ["workspaces", 0],
  ["lineage", "s-1", 0],
  ["lineage", "s-2", 0],
  ["checkpoint-file", "s-1", 4, "a.txt"],
  ["checkpoint-file", "s-2", 4, "a.txt"],
  ["config"],
  ["storage"],
] as const;

describe("what a write invalidates", () => {
  it("a new or changed session makes the three sidebar lists stale, nothing else", async () => {
    const client = clientWith(keys);
    await invalidateLists(client);
    expect(keys.filter((key) => stale(client, key))).toEqual([
      ["sessions", { q: "" }, 0],
      ["events", { q: "tea" }, 2],
      ["workspaces", 0],
    ]);
  });

  it("a rewind, restore, undo or fork of a session also makes its lineage and diffs stale", async () => {
    const client = clientWith(keys);
    await invalidateSession(client, "s-1");
    expect(keys.filter((key) => stale(client, key))).toEqual([
      ["sessions", { q: "" }, 0],
      ["events", { q: "tea" }, 2],
      ["workspaces", 0],
      ["lineage", "s-1", 0],
      ["checkpoint-file", "s-1", 4, "a.txt"],
    ]);
  });
});
