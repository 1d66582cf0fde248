import { statSync } from "node:fs";
import path from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { lastTurnSettings } from "./open-session";
import { sessionTrustLedger } from "./session-trust";

async function autoSession(home: string, origin?: { tool: string; sessionId: string }) {
  const store = createSessionStore({ home });
  const { sessionId } = await store.create({ cwd: "/tmp" });
  await store.append(sessionId, [
    {
      type: "turn/start",
      runId: "r1",
      policy: { approval: "auto" },
      model: "openai:m",
      resumed: false,
    },
    { type: "turn/end", runId: "r1", status: "completed" },
  ]);
  const session = await store.readSession(sessionId);
  return origin === undefined
    ? session
    : { sessionId, events: session.events, header: { ...session.header, origin } };
}

describe("sessionTrustLedger", () => {
  it("keeps entries per session in a 0600 file and never builds a path from a bad id", () => {
    const home = testTempDir("tapedeck-trust-");
    const trust = sessionTrustLedger(home);
    const id = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
    expect(trust.has([id], "ran")).toBe(false);
    trust.add(id, "ran");
    trust.add(id, "ran");
    expect(trust.has(["../../etc/passwd", id], "ran")).toBe(true);
    expect(trust.has([id], "approval auto")).toBe(false);
    trust.add("../escape", "ran");
    expect(statSync(path.join(home, "trust", id)).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(home, "trust")).mode & 0o777).toBe(0o700);
  });
});

describe("lastTurnSettings", () => {
  it("restores auto only when this home ran the session under auto", async () => {
    const home = testTempDir("tapedeck-trust-");
    const trust = sessionTrustLedger(home);
    const session = await autoSession(home);
    expect(lastTurnSettings(session, trust)?.approval).toBe("ask");
    expect(lastTurnSettings(session)?.approval).toBe("ask");
    trust.add(session.sessionId, "approval auto");
    expect(lastTurnSettings(session, trust)?.approval).toBe("auto");
  });

  it("opens an imported session in ask whatever its log says", async () => {
    const home = testTempDir("tapedeck-trust-");
    const trust = sessionTrustLedger(home);
    const session = await autoSession(home, { tool: "tapedeck", sessionId: "x" });
    trust.add(session.sessionId, "approval auto");
    expect(lastTurnSettings(session, trust)?.approval).toBe("ask");
  });
});
