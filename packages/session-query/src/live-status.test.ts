import { describe, expect, it } from "vitest";
import { settleActiveSessions } from "./live-status";

describe("settleActiveSessions", () => {
  it("shows an open turn without a live writer as interrupted, and leaves the rest alone", async () => {
    const items = [
      { id: "running", status: "active" as const },
      { id: "crashed", status: "active" as const },
      { id: "done", status: "completed" as const },
      { id: "broken", status: "damaged" as const },
    ];
    const asked: string[] = [];
    const settled = await settleActiveSessions(items, async (id) => {
      asked.push(id);
      return id === "running";
    });
    expect(settled.map((item) => item.status)).toEqual([
      "active",
      "interrupted",
      "completed",
      "damaged",
    ]);
    expect(asked.sort()).toEqual(["crashed", "running"]);
    expect(items[1]?.status).toBe("active");
  });
});
