// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright locators; innerText is the visible text on purpose.
/**
 * The viewer in a real browser: Debian's Chromium driven by playwright-core against the real
 * server (temp home, SQLite index) with llm-replay's OpenAI-compatible server as the model.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { shortIds } from "@tapedeck/host";
import { scriptedRecording } from "@tapedeck/llm-replay";
import { replayLogText } from "@tapedeck/session";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { writeSession } from "../bench/corpus";
import { demoLogsFromFixtures } from "../src/server/index";
import { ARTIFACTS, serveHome, setupBrowserSuite, slowAnswer, VIEWPORT } from "./browser-harness";
import { HUGE_OUTPUT, seedHome } from "./seed";

const suite = setupBrowserSuite({
  seed: () => {
    const seeded = seedHome();
    /** A 10,000-event session. */
    const big = writeSession(seeded.home, 10_000, 7, new Date("2025-12-01T00:00:00Z"), {
      chinese: false,
    });
    return { ...seeded, big };
  },
  model: true,
  serve: (seeded) => ({ sqlite: true, cwd: seeded.work }),
});

/** A page that accepts downloads, closed after the test. */
const newPage = () => suite.newPage({ viewport: VIEWPORT, acceptDownloads: true });

async function screenshot(page: Page, name: string) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

describe("viewer", () => {
  it("opens a seeded session grouped by turn with tool output and compaction", async () => {
    const page = await newPage();
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.english}`);
    const timeline = page.getByTestId("timeline");
    await expect.poll(() => timeline.innerText()).toContain("Turn 2");
    const text = await timeline.innerText();
    expect(text).toContain("Turn 1");
    expect(text).toContain("read_file");
    expect(text).toContain("A tiny teapot simulator.");
    expect(text).toContain("replaced by #12");
    expect(text).toContain("Replaced 4 events");
    expect(text).toContain("120 in / 8 out tokens");
    await screenshot(page, "session");
  });

  it("opens a 10,000-event session with only the visible rows in the DOM", async () => {
    const store = createSessionStore({ home: suite.seeded.home });
    const session = await store.readSession(suite.seeded.big);
    const last = session.events.findLast((event) => event.type === "message");
    const page = await newPage();
    const started = Date.now();
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.big}&seq=${last?.seq}`);
    const selected = page.locator(
      `[data-testid="timeline"] .row.selected[data-seq="${last?.seq}"]`,
    );
    await selected.waitFor();
    const elapsed = Date.now() - started;
    expect(await selected.innerText()).toContain(
      last?.type === "message" ? last.content.slice(0, 40) : "",
    );
    expect(await page.locator('[data-testid="timeline"] .row').count()).toBeLessThan(200);
    expect(await page.locator(".session-header").innerText()).toContain(
      `${session.events.length.toLocaleString("en-US")} events`,
    );
    // Generous on a shared CI machine; the benchmark measures the real figure.
    expect(elapsed).toBeLessThan(10_000);
  });

  it("opens a long session at its last page and loads earlier pages on request", async () => {
    const store = createSessionStore({ home: suite.seeded.home });
    const session = await store.readSession(suite.seeded.big);
    const page = await newPage();
    const requested: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith(`/api/sessions/${suite.seeded.big}`)) {
        requested.push(`${url.pathname}${url.search}`);
      }
    });
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.big}`);
    const earlier = page.getByTestId("load-earlier");
    await earlier.waitFor();
    // Never the whole session: its last page, then the stream from where that page ended.
    expect(requested.some((url) => url === `/api/sessions/${suite.seeded.big}`)).toBe(false);
    // "Load earlier events (N before #firstSeq)"
    const firstSeq = Number(
      /before #([\d,]+)/.exec(await earlier.innerText())?.[1]?.replaceAll(",", ""),
    );
    expect(firstSeq).toBeGreaterThan(1000);
    // It opens at its newest rows: the session's last message is on screen.
    const lastMessage = session.events.findLast((event) => event.type === "message");
    await page
      .locator(`[data-testid="timeline"] .row[data-seq="${lastMessage?.seq}"]`)
      .first()
      .waitFor();
    // The header counts the whole session, not the page, and its title is the first prompt.
    expect(await page.locator(".session-header").innerText()).toContain(
      `${session.events.length.toLocaleString("en-US")} events`,
    );
    expect(await page.getByTestId("session-title").innerText()).toMatch(/^Turn 1: /);
    // Keyboard: focus the control and press Enter; rows before the first one appear.
    await earlier.focus();
    await page.keyboard.press("Enter");
    await expect
      .poll(() => requested.filter((url) => url.includes(`before=${firstSeq}`)).length)
      .toBe(1);
    // The control now names an earlier first event; the rows before the old first one are there.
    await expect
      .poll(() => earlier.innerText())
      .not.toContain(`#${firstSeq.toLocaleString("en-US")}`);
    // Scrolled straight to the top (Home, the scrollbar), the next page loads and the rows that
    // were at the top stay there: the view is not pulled back to the rows it held before the jump.
    const secondFirst = Number(
      /before #([\d,]+)/.exec(await earlier.innerText())?.[1]?.replaceAll(",", ""),
    );
    expect(secondFirst).toBeLessThan(firstSeq);
    const timeline = page.getByTestId("timeline");
    await timeline.evaluate((element) => {
      element.scrollTop = 0;
    });
    await expect
      .poll(() => requested.filter((url) => url.includes(`before=${secondFirst}`)).length)
      .toBe(1);
    await expect
      .poll(() => earlier.innerText())
      .not.toContain(`#${secondFirst.toLocaleString("en-US")}`);
    // Two frames: the kept row's scroll has been written.
    await page.evaluate(
      () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
    );
    const inView = await timeline.evaluate((element) => {
      const box = element.getBoundingClientRect();
      return [...element.querySelectorAll(".row")]
        .filter((row) => {
          const rect = row.getBoundingClientRect();
          return rect.bottom > box.top && rect.top < box.bottom;
        })
        .map((row) => Number(row.getAttribute("data-seq")));
    });
    expect(inView.length).toBeGreaterThan(0);
    expect(Math.max(...inView)).toBeLessThan(firstSeq);
  });

  it("loads the earlier page when the timeline is scrolled to its top", async () => {
    const page = await newPage();
    const earlierPages: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname.endsWith("/page") && url.searchParams.has("before")) {
        earlierPages.push(url.search);
      }
    });
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.big}`);
    await page.getByTestId("load-earlier").waitFor();
    expect(earlierPages).toEqual([]);
    await page.getByTestId("timeline").evaluate((timeline) => {
      timeline.scrollTop = 0;
    });
    await expect.poll(() => earlierPages.length).toBeGreaterThan(0);
  });

  it("follows a link to an early event of a long session: loads back to it and selects it", async () => {
    const store = createSessionStore({ home: suite.seeded.home });
    const session = await store.readSession(suite.seeded.big);
    const target = session.events.find((event) => event.seq > 30 && event.type === "message");
    const page = await newPage();
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.big}&seq=${target?.seq}`);
    const text = target?.type === "message" ? target.content.slice(0, 30) : "?";
    const selected = page
      .locator(`[data-testid="timeline"] .row.selected[data-seq="${target?.seq}"]`)
      .filter({ hasText: text });
    await selected.waitFor({ timeout: 20_000 });
    const trace = page.getByTestId("trace");
    await expect.poll(() => trace.textContent().catch(() => "")).toContain("Replacement chain");
  });

  it("follows a deep link to an event and shows its trace", async () => {
    const page = await newPage();
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.english}&seq=6`);
    const trace = page.getByTestId("trace");
    await expect.poll(() => trace.textContent().catch(() => "")).toContain("Replacement chain");
    expect(await trace.innerText()).toContain("#12");
    expect(await trace.textContent()).toMatch(/Cited by[\s\S]*#7/);
    await screenshot(page, "trace");
    await trace.getByRole("link", { name: "#12" }).first().click();
    await expect.poll(() => new URL(page.url()).searchParams.get("seq")).toBe("12");
  });

  it("shows the input items the model saw at a model call", async () => {
    const page = await newPage();
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.english}`);
    await page.getByRole("link", { name: "Show input" }).click();
    const call = page.getByTestId("model-call");
    await expect.poll(() => call.textContent().catch(() => "")).toContain("Model input (2 items)");
    const text = await call.innerText();
    expect(text).toContain("system: You are a careful coding agent.");
    expect(text).toContain("user: Please read the README of the kettle project");
  });

  it("searches English and Chinese with highlighted snippets", async () => {
    const page = await newPage();
    await page.goto(suite.served.server.url);
    const search = page.getByRole("searchbox", { name: "Search" });
    const hits = page.getByTestId("event-hits");
    /** The first highlighted word of the hits ("" before there is one). */
    const firstMark = () =>
      hits
        .locator("mark")
        .first()
        .innerText()
        .catch(() => "");
    // Half-typed: the word being typed matches as a prefix, the whole word is highlighted.
    await search.pressSequentially("teap");
    await expect.poll(firstMark).toMatch(/^teapot$/i);
    await search.fill("teapot");
    await expect.poll(firstMark).toMatch(/teapot/i);
    await screenshot(page, "search");
    await search.fill("鸣笛");
    await expect.poll(firstMark).toBe("鸣笛");
    expect(await hits.locator(".hit-item").count()).toBe(1);
    await hits.locator("button").first().click();
    await expect
      .poll(() => new URL(page.url()).searchParams.get("session"))
      .toBe(suite.seeded.chinese);
    await expect
      .poll(() => page.getByTestId("timeline").innerText())
      .toContain("茶壶模拟器由三个模块组成");
  });

  it("never lets a late answer for an earlier search replace the hits of the current one", async () => {
    const page = await newPage();
    // The answer to "teapot" is held back until the search has moved on to 鸣笛 and its hits show.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let lateAnswered = () => {};
    const late = new Promise<void>((resolve) => {
      lateAnswered = resolve;
    });
    await page.route(
      (url) => url.pathname === "/api/events" && url.searchParams.get("q") === "teapot",
      async (route) => {
        await held;
        await route.continue();
        lateAnswered();
      },
    );
    await page.goto(suite.served.server.url);
    const search = page.getByRole("searchbox", { name: "Search" });
    const hits = page.getByTestId("event-hits");
    const marks = () =>
      hits
        .locator("mark")
        .allInnerTexts()
        .catch(() => []);
    const asked = page.waitForRequest((request) => request.url().includes("q=teapot"));
    await search.fill("teapot");
    await asked;
    await search.fill("鸣笛");
    await expect.poll(marks).toEqual(["鸣笛"]);
    release();
    await late;
    // The late answer has arrived (and been read): the hits are still the current search's.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
    expect(await marks()).toEqual(["鸣笛"]);
    expect(await hits.locator(".hit-item").count()).toBe(1);
  });

  it("shows the lineage of a fork and links its nodes", async () => {
    const page = await newPage();
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.fork}`);
    await page.getByRole("button", { name: "Lineage", exact: true }).click();
    const lineage = page.getByTestId("lineage");
    await expect.poll(() => lineage.innerText().catch(() => "")).toContain("(this session)");
    expect(await lineage.innerText()).toContain(suite.seeded.english.slice(0, 8));
    await screenshot(page, "lineage");
    await lineage.locator(`button[title="${suite.seeded.english}"]`).click();
    await expect
      .poll(() => new URL(page.url()).searchParams.get("session"))
      .toBe(suite.seeded.english);
  });

  it("exports validated JSONL", async () => {
    const page = await newPage();
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.english}`);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Export JSONL" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${suite.seeded.english}.jsonl`);
    const file = await download.path();
    const session = replayLogText(readFileSync(file, "utf8"));
    expect(session.sessionId).toBe(suite.seeded.english);
  });

  it("says where a damaged log is damaged", async () => {
    const page = await newPage();
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.damaged}`);
    const error = page.getByTestId("session-error");
    await expect.poll(() => error.innerText().catch(() => "")).toContain("BAD_JSON at line 4");
  });

  it("renders a hostile session as text and runs none of its markup", async () => {
    const page = await newPage();
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.hostile}`);
    const timeline = page.getByTestId("timeline");
    await expect
      .poll(() => timeline.innerText())
      .toContain('<script>window.__pwned = "script"</script>');
    expect(await timeline.innerText()).toContain(`<img src=x onerror="window.__pwned='img'">`);
    await timeline.locator("summary", { hasText: "onerror" }).click();
    await timeline.getByRole("button", { name: /Show all/ }).click();
    await expect.poll(() => timeline.innerText()).toContain("END-HUGE");
    expect(await timeline.locator("img, script").count()).toBe(0);
    expect(await page.evaluate(() => (window as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect((await timeline.innerText()).length).toBeGreaterThan(HUGE_OUTPUT.length);
    await screenshot(page, "hostile");
  });

  it("forks from an event and opens the fork", async () => {
    const page = await newPage();
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.chinese}`);
    const row = page.locator('[data-seq="4"]');
    await row.getByRole("button", { name: "Fork from here" }).click();
    await expect
      .poll(() => new URL(page.url()).searchParams.get("session"))
      .not.toBe(suite.seeded.chinese);
    const forkId = new URL(page.url()).searchParams.get("session") ?? "";
    const header = await createSessionStore({ home: suite.seeded.home }).readHeader(forkId);
    expect(header.parent).toEqual({ sessionId: suite.seeded.chinese, seq: 4 });
    // The parent is named by the host's short id (unique in the home, fork included).
    const store = createSessionStore({ home: suite.seeded.home });
    const parentShort = shortIds(await store.sessionIds()).get(suite.seeded.chinese);
    await expect
      .poll(() => page.locator(".session-header").innerText())
      .toContain(`fork of ${parentShort} at #4`);
  });

  it("shows sessions another process appends without a reload", async () => {
    const page = await newPage();
    await page.goto(suite.served.server.url);
    await expect
      .poll(() => page.getByTestId("sessions").innerText())
      .toContain("Please read the README");
    const store = createSessionStore({ home: suite.seeded.home });
    const created = await store.create({ cwd: suite.seeded.home, workspaceId: "live-test" });
    await store.append(created.sessionId, [
      {
        type: "turn/start",
        runId: created.events[0]?.runId ?? "01900000-0000-7000-8000-000000000001",
        policy: { approval: "auto" },
        model: "openai:gpt-4.1-mini",
        resumed: false,
      },
      {
        type: "message",
        runId: "01900000-0000-7000-8000-000000000001",
        role: "user",
        content: "Appended by another process",
      },
    ]);
    await expect
      .poll(() => page.getByTestId("sessions").innerText(), { timeout: 10_000 })
      .toContain("Appended by another process");
  });
});

describe("agent composer", () => {
  it("continues a session: banner, streamed answer, current run card", async () => {
    await suite.useModel(
      scriptedRecording()
        .system("s")
        .user("q")
        .text("The kettle whistles at one hundred degrees.", {
          chunks: ["The kettle ", "whistles at ", "one hundred degrees."],
        })
        .end()
        .build(),
    );
    const page = await newPage();
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.english}`);
    await page.getByRole("button", { name: "Continue this session" }).click();
    const banner = page.getByTestId("continue-banner");
    // The host's short id (unique in the home), not an 8-character prefix.
    const short = shortIds(await createSessionStore({ home: suite.seeded.home }).sessionIds()).get(
      suite.seeded.english,
    );
    await expect
      .poll(() => banner.innerText())
      .toBe(`Continuing session ${short} · Start new session`);
    await page.getByRole("textbox", { name: "Message" }).fill("When does the kettle whistle?");
    await page.getByRole("button", { name: "Send" }).click();
    await expect
      .poll(() => page.getByTestId("live-run").innerText())
      .toContain("The kettle whistles at one hundred degrees.");
    const card = page.getByTestId("current-run");
    await expect.poll(() => card.innerText()).toContain(`continuing session ${short}`);
    await expect.poll(() => page.getByTestId("run-status").innerText()).toBe("completed");
    // The highlighted session is still the continued one, and its timeline shows the new turn.
    expect(new URL(page.url()).searchParams.get("session")).toBe(suite.seeded.english);
    await expect.poll(() => page.getByTestId("timeline").innerText()).toContain("Turn 3");
    await screenshot(page, "composer");
    const session = await createSessionStore({ home: suite.seeded.home }).readSession(
      suite.seeded.english,
    );
    expect(session.events.at(-1)).toMatchObject({ type: "turn/end", status: "completed" });
  });

  it("asks for approval in the page and runs the tool once approved", async () => {
    await suite.useModel(
      scriptedRecording()
        .system("s")
        .user("q")
        .toolCall("write_file", { path: "approved-note.txt", content: "hello" })
        .toolResult("ok")
        .text("Wrote approved-note.txt.")
        .end()
        .build(),
    );
    const page = await newPage();
    await page.goto(suite.served.server.url);
    await page.getByRole("textbox", { name: "Message" }).fill("Write a note");
    await page.getByRole("button", { name: "Send" }).click();
    const approval = page.getByTestId("approval");
    await expect.poll(() => approval.innerText().catch(() => "")).toContain("write_file");
    expect(await page.getByTestId("run-status").innerText()).toBe("waiting_approval");
    await screenshot(page, "approval");
    await approval.getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => page.getByTestId("run-status").innerText()).toBe("completed");
    expect(await page.getByTestId("live-run").innerText()).toContain("Wrote approved-note.txt.");
    expect(existsSync(path.join(suite.seeded.work, "approved-note.txt"))).toBe(true);
    // A new session was created and is now the highlighted one and the one continued next.
    const sessionId = new URL(page.url()).searchParams.get("session") ?? "";
    expect(await page.getByTestId("continue-banner").innerText()).toContain(sessionId.slice(0, 8));
  });

  it("cancels a run in progress", async () => {
    await suite.useModel(slowAnswer("word", 400), true);
    const page = await newPage();
    await page.goto(suite.served.server.url);
    await page.getByRole("textbox", { name: "Message" }).fill("Tell me a long story");
    await page.getByRole("button", { name: "Send" }).click();
    await expect
      .poll(() =>
        page
          .getByTestId("live-run")
          .innerText()
          .catch(() => ""),
      )
      .toContain("word0");
    await page.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => page.getByTestId("run-status").innerText()).toBe("cancelled");
    expect(await page.getByTestId("live-run").innerText()).not.toContain("word39");
  });
});

describe("long lists", () => {
  it("pages the sessions list by cursor as it scrolls, and filters by workspace", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "tapedeck-web-many-"));
    mkdirSync(path.join(home, "sessions"));
    for (let index = 0; index < 95; index++) {
      const workspace = index % 5 === 0 ? "/work/rare" : "/work/common";
      const log = eventLogBuilder({
        cwd: workspace,
        workspaceId: workspace,
        start: new Date(Date.UTC(2026, 1, 1, 0, index)),
      });
      log.turn().user(`Session number ${index}`).assistant("ok").end();
      writeFileSync(path.join(home, "sessions", `${log.header.sessionId}.jsonl`), log.jsonl());
    }
    const many = await serveHome({ home, clientDir: suite.clientDir, env: {} });
    try {
      const page = await newPage();
      await page.goto(many.server.url);
      const items = page.getByTestId("sessions").locator("li");
      await expect.poll(() => items.count()).toBe(40);
      expect(await items.first().innerText()).toContain("Session number 94");
      await items.last().scrollIntoViewIfNeeded();
      await expect.poll(() => items.count()).toBe(80);
      await items.last().scrollIntoViewIfNeeded();
      await expect.poll(() => items.count()).toBe(95);
      expect(await items.last().innerText()).toContain("Session number 0");
      await page.getByRole("combobox", { name: "Workspace" }).selectOption("/work/rare");
      await expect.poll(() => items.count()).toBe(19);
    } finally {
      await many.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("empty home", () => {
  it("says what to do next and loads the demo sessions only when asked", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "tapedeck-web-empty-"));
    const demoLogs = await demoLogsFromFixtures();
    const empty = await serveHome({
      home,
      clientDir: suite.clientDir,
      env: {},
      ...(demoLogs === undefined ? {} : { demoLogs }),
    });
    try {
      const page = await newPage();
      await page.goto(empty.server.url);
      const welcome = page.getByTestId("welcome");
      await expect.poll(() => welcome.innerText()).toContain("No sessions yet");
      expect(existsSync(path.join(home, "sessions"))).toBe(false);
      expect(await page.getByTestId("composer").innerText()).toContain("OPENAI_API_KEY");
      await screenshot(page, "empty");
      await page.getByRole("button", { name: "Load demo sessions" }).click();
      await expect
        .poll(() => page.getByTestId("sessions").innerText())
        .toContain("帮我找一下处理用户登录的代码");
      await screenshot(page, "demo");
    } finally {
      await empty.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
