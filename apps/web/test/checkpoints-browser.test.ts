// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright locators; innerText is the visible text on purpose.
/**
 * Checkpoints in Debian's Chromium: a turn lists the files it changed, a file opens as its diff,
 * and "Restore files to here" previews (hand edits named, confirm held until they are accepted)
 * before it restores the workspace's files; its Undo puts them back.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { scriptedProvider } from "@tapedeck/agent/testing";
import { gitRepo } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";
import { ARTIFACTS, setupBrowserSuite } from "./browser-harness";
import { collect } from "./sse";

const command = "sed -i s/one/two/ a.txt && echo fresh > new.txt";

const suite = setupBrowserSuite({
  seed: () => {
    const root = mkdtempSync(path.join(tmpdir(), "tapedeck-web-checkpoints-browser-"));
    const work = path.join(root, "work");
    mkdirSync(work);
    gitRepo(work, { README: "readme\n" });
    return { home: path.join(root, "tapedeck"), work, removeAfter: [root] };
  },
  serve: (seeded) => {
    const provider = scriptedProvider([
      {
        calls: [
          { callId: "c1", name: "write_file", arguments: { path: "a.txt", content: "one\n" } },
        ],
      },
      { text: "ok1" },
      { calls: [{ callId: "c2", name: "run_command", arguments: { command } }] },
      { text: "ok2" },
    ]);
    return { cwd: seeded.work, provider: () => provider, env: { PATH: process.env.PATH } };
  },
});

/** Runs a turn through the served app (the server's own host). */
async function turn(input: string, sessionId?: string): Promise<string> {
  const events = await collect(
    await suite.served.web.app.request("/api/agent/stream", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        input,
        policy: "auto",
        ...(sessionId === undefined ? {} : { sessionId }),
      }),
    }),
  );
  expect(events.at(-1)?.event).toBe("run_finished");
  return (JSON.parse(events[0]?.data ?? "{}") as { sessionId: string }).sessionId;
}

describe("checkpoints in the viewer", () => {
  it("shows a turn's changed file as a diff, previews, restores the files to the first turn and undoes", async () => {
    const sessionId = await turn("t1");
    await turn("t2", sessionId);
    const { work } = suite.seeded;
    const page = await suite.open(`?session=${sessionId}`);
    const turns = page.getByTestId("turn-files");
    await expect.poll(() => turns.count()).toBe(2);
    const second = turns.nth(1);
    expect(await second.getByTestId("changed-file").allInnerTexts()).toEqual(
      expect.arrayContaining([
        expect.stringContaining("a.txt"),
        expect.stringContaining("new.txt"),
      ]),
    );
    await second.getByTestId("changed-file").filter({ hasText: "a.txt" }).click();
    const diff = second.getByTestId("diff");
    await expect.poll(() => diff.innerText().catch(() => "")).toContain("- one");
    expect(await diff.innerText()).toContain("+ two");

    writeFileSync(path.join(work, "a.txt"), "hand\n");
    const first = turns.nth(0);
    await first.getByTestId("restore-files").click();
    const preview = first.getByTestId("rewind-preview");
    await expect.poll(() => preview.innerText().catch(() => "")).toContain("modified a.txt");
    expect(await preview.innerText()).toContain("deleted new.txt");
    expect(await first.getByTestId("rewind-hand-edits").innerText()).toContain("a.txt");
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, "checkpoints.png") });
    const confirm = first.getByTestId("rewind-confirm");
    expect(await confirm.isDisabled()).toBe(true);
    expect(readFileSync(path.join(work, "a.txt"), "utf8")).toBe("hand\n");
    await first.getByTestId("rewind-overwrite").check();
    await confirm.click();
    await expect
      .poll(() =>
        first
          .getByTestId("rewind-done")
          .innerText()
          .catch(() => ""),
      )
      .toContain("Restored 2 files");
    expect(readFileSync(path.join(work, "a.txt"), "utf8")).toBe("one\n");

    // Undo puts back what the restore replaced, the hand edit included, and is offered once.
    await first.getByTestId("rewind-undo").click();
    await expect
      .poll(() =>
        first
          .getByTestId("rewind-done")
          .innerText()
          .catch(() => ""),
      )
      .toContain("Undone: 2 files");
    expect(readFileSync(path.join(work, "a.txt"), "utf8")).toBe("hand\n");
    expect(readFileSync(path.join(work, "new.txt"), "utf8")).toBe("fresh\n");
    expect(await first.getByTestId("rewind-undo").count()).toBe(0);

    // "Rewind to here" on the second turn: files back to its end, and the page opens the fork.
    await second.getByTestId("rewind-here").click();
    await expect
      .poll(() =>
        second
          .getByTestId("rewind-preview")
          .innerText()
          .catch(() => ""),
      )
      .toContain("modified a.txt");
    await second.getByTestId("rewind-confirm").click();
    await expect.poll(() => new URL(page.url()).searchParams.get("session")).not.toBe(sessionId);
    const fork = new URL(page.url()).searchParams.get("session") ?? "";
    expect((await suite.served.store.readSession(fork)).header.parent?.sessionId).toBe(sessionId);
    expect(readFileSync(path.join(work, "a.txt"), "utf8")).toBe("two\n");
  });
});
