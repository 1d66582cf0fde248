// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright locators; innerText is the visible text on purpose.
/**
 * The viewer's "Import" in Debian's Chromium: what the other agents' default folders hold (fake
 * ones under a temp HOME), an import with its progress line, and the imported session showing
 * where it came from.
 */
import { cpSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createSessionStore } from "@tapedeck/session-store";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awaitTakeover, setupBrowserSuite, VIEWPORT } from "./browser-harness";

const samples = fileURLToPath(
  new URL("../../../packages/importers/__fixtures__/samples", import.meta.url),
);
const SAMPLE_ID = "55604662-cf2a-4331-851a-ec234028f8ca";
/** Generated Claude Code transcripts beside the real one: enough files for several progress lines. */
const MADE = 24;

/** The page of the suite: its init script records every progress line. */
let page: Page;

/** What the panel prints for a size (its own rule: KB rounded up below 1 MB). */
const kb = (bytes: number) => `${Math.ceil(bytes / 1024)} KB`;

function writeClaudeSessions(projects: string): number {
  const folder = path.join(projects, "-work-made");
  mkdirSync(folder, { recursive: true });
  let bytes = 0;
  for (let index = 0; index < MADE; index += 1) {
    const id = `dddddddd-0000-4000-8000-${String(index).padStart(12, "0")}`;
    const common = { sessionId: id, cwd: "/work/made", isSidechain: false, version: "2.1.38" };
    const at = (second: number) => new Date(Date.UTC(2026, 0, 3, 9, index, second)).toISOString();
    const lines = [
      {
        ...common,
        type: "user",
        uuid: `${id}-u`,
        parentUuid: null,
        timestamp: at(1),
        message: { role: "user", content: `made session ${index}: ${"context ".repeat(200)}` },
      },
      {
        ...common,
        type: "assistant",
        uuid: `${id}-a`,
        parentUuid: `${id}-u`,
        timestamp: at(2),
        message: {
          id: `msg_${index}`,
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [{ type: "text", text: `answer ${index}` }],
        },
      },
    ];
    const file = path.join(folder, `${id}.jsonl`);
    writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
    bytes += statSync(file).size;
  }
  return bytes;
}

const suite = setupBrowserSuite({
  seed: () => {
    const root = mkdtempSync(path.join(tmpdir(), "tapedeck-web-import-browser-"));
    const userHome = path.join(root, "user");
    const projects = path.join(userHome, ".claude", "projects");
    cpSync(path.join(samples, "claude-code"), projects, { recursive: true });
    const claudeBytes =
      statSync(path.join(projects, "-home-marco-projects-spotter", `${SAMPLE_ID}.jsonl`)).size +
      writeClaudeSessions(projects);
    const codexSessions = path.join(root, "codex-home", "sessions");
    cpSync(path.join(samples, "codex"), codexSessions, { recursive: true });
    const codexBytes = statSync(
      path.join(
        codexSessions,
        "2025/12/28/rollout-2025-12-28T12-18-30-019b64e5-57fa-7463-b644-fba7e456f905.jsonl",
      ),
    ).size;
    return {
      home: path.join(root, "tapedeck"),
      root,
      userHome,
      claudeBytes,
      codexBytes,
      removeAfter: [root],
    };
  },
  serve: (seeded) => ({
    // pi and opencode: their default folders under this HOME do not exist.
    importEnvironment: {
      HOME: seeded.userHome,
      CODEX_HOME: path.join(seeded.root, "codex-home"),
    },
  }),
});

beforeAll(async () => {
  page = await suite.browser.newPage({ viewport: VIEWPORT });
  awaitTakeover(page);
  // Every text the progress line shows, however briefly it is on screen.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { importProgress: string[] }).importProgress = seen;
    new MutationObserver(() => {
      const line = document.querySelector('[data-testid="import-progress"]');
      const text = line?.textContent ?? "";
      if (text !== "" && seen.at(-1) !== text) seen.push(text);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
});

afterAll(async () => {
  await page?.close();
});

describe("Import panel", () => {
  it("lists the default folders' files and sizes, imports with progress, and the session shows its origin", async () => {
    const { served, seeded } = suite;
    const { claudeBytes, codexBytes } = seeded;
    await page.goto(served.server.url);
    await page.getByTestId("import-open").click();
    const claude = page.getByTestId("import-source-claude-code");
    await expect.poll(() => claude.innerText()).toContain(`${MADE + 1} file(s)`);
    expect(await claude.innerText()).toContain(kb(claudeBytes));
    expect(await page.getByTestId("import-source-codex").innerText()).toContain(
      `1 file(s), ${kb(codexBytes)}`,
    );
    for (const source of ["pi", "opencode"]) {
      const row = page.getByTestId(`import-source-${source}`);
      expect(await row.innerText()).toContain("nothing found");
      expect(await row.getByRole("button", { name: "Import" }).isDisabled()).toBe(true);
    }

    await claude.getByRole("button", { name: "Import" }).click();
    const message = page.getByTestId("import-message");
    await expect
      .poll(() => message.innerText().catch(() => ""))
      .toContain(`Claude Code: ${MADE + 1} new, 0 updated, 0 forked, 0 unchanged session(s)`);
    const progress = await page.evaluate(
      () => (window as unknown as { importProgress: string[] }).importProgress,
    );
    // The import yields between files, so the line moves while it runs.
    expect(progress.length).toBeGreaterThan(1);
    const done = progress.map((line) => {
      expect(line).toMatch(/^\d+\/25 files · \d+ KB of \d+ KB$/);
      return Number(line.split("/")[0]);
    });
    expect(done).toEqual([...done].sort((a, b) => a - b));
    // The list refreshed with the imported sessions.
    await expect.poll(() => page.getByTestId("sessions").innerText()).toContain("made session 23");

    const store = createSessionStore({ home: seeded.home });
    const imported = (await store.list()).find(
      (listing) =>
        (listing.header as { origin?: { sessionId?: string } }).origin?.sessionId === SAMPLE_ID,
    );
    expect(imported).toBeDefined();
    await page.goto(`${served.server.url}/?session=${imported!.header.sessionId}`);
    const origin = page.getByTestId("session-origin");
    await expect
      .poll(() => origin.innerText().catch(() => ""))
      .toContain("imported from Claude Code");
    expect(await origin.getAttribute("title")).toBe(`claude-code session ${SAMPLE_ID}`);
  });
});
