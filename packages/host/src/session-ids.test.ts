import { uuidv7 } from "@tapedeck/session";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { MIN_SHORT_ID, resolveSessionId, shortIds } from "./session-ids";
import { parseSlashCommand } from "./slash-commands";

describe("shortIds", () => {
  it("gives ids created in the same minute different short ids of at least 8 characters", () => {
    const ids = Array.from({ length: 50 }, () => uuidv7());
    const short = shortIds(ids);
    const values = [...short.values()];
    expect(new Set(values).size).toBe(ids.length);
    for (const [id, value] of short) {
      expect(id.startsWith(value)).toBe(true);
      expect(value.length).toBeGreaterThanOrEqual(MIN_SHORT_ID);
      expect(value.endsWith("-")).toBe(false);
      expect(ids.filter((other) => other.startsWith(value))).toEqual([id]);
    }
  });

  it("each short id is accepted back by resolveSessionId", async () => {
    const home = testTempDir("tapedeck-short-");
    const store = createSessionStore({ home });
    const created = [];
    for (let index = 0; index < 5; index += 1) {
      created.push((await store.create({ cwd: home, seed: [] })).sessionId);
    }
    const short = shortIds(created);
    for (const id of created) {
      expect(await resolveSessionId(store, short.get(id) as string)).toBe(id);
    }
  });
});

describe("parseSlashCommand", () => {
  it("reads /compact and /goal, and leaves other text (and unknown commands) as prompts", () => {
    expect(parseSlashCommand(" /compact ")).toEqual({ name: "compact" });
    expect(parseSlashCommand("/goal Ship it\nsoon")).toEqual({
      name: "goal",
      goal: "Ship it\nsoon",
    });
    expect(parseSlashCommand("/goal clear")).toEqual({ name: "goal", goal: null });
    expect(parseSlashCommand("/goal")).toEqual({ name: "goal", goal: null });
    expect(parseSlashCommand("/goals are nice")).toBeUndefined();
    expect(parseSlashCommand("please /compact")).toBeUndefined();
    expect(parseSlashCommand("/unknown")).toBeUndefined();
  });
});
