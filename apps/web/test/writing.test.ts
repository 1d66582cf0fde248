// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright locators; innerText is the visible text on purpose.
/**
 * Writing in Debian's Chromium: the composer keeps refused text, shows the limit, sends with Enter,
 * says whether it continues or starts anew, follows the new turn, and the run card's state comes
 * from the run's event stream (the Deny bug).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { scriptedRecording } from "@tapedeck/llm-replay";
import { createSessionStore } from "@tapedeck/session-store";
import { describe, expect, it } from "vitest";
import { writeSession } from "../bench/corpus";
import { INPUT_LIMIT } from "../src/shared/limits";
import { setupBrowserSuite, slowAnswer } from "./browser-harness";
import { seedHome } from "./seed";

const suite = setupBrowserSuite({
  seed: seedHome,
  model: true,
  serve: (seeded) => ({ cwd: seeded.work }),
});

const answer = (text: string) => scriptedRecording().system("s").user("q").text(text).end().build();

describe("composer", () => {
  it("keeps the text of a refused send (the session is busy) and shows why", async () => {
    await suite.useModel(answer("never"));
    // Another process (a `tapedeck run`, an editor) is writing the session.
    const writer = await createSessionStore({ home: suite.seeded.home }).openWriter(
      suite.seeded.chinese,
    );
    try {
      const page = await suite.open(`?session=${suite.seeded.chinese}`);
      await page.getByRole("button", { name: "Continue this session" }).click();
      const box = page.getByRole("textbox", { name: "Message" });
      await box.fill("My carefully written follow-up");
      await page.getByRole("button", { name: "Send" }).click();
      await expect
        .poll(() =>
          page
            .getByTestId("live-run")
            .innerText()
            .catch(() => ""),
        )
        .toMatch(/busy|SESSION_BUSY|409/i);
      expect(await box.inputValue()).toBe("My carefully written follow-up");
    } finally {
      await writer.close();
    }
  });

  it("shows the length limit before sending and refuses to send past it", async () => {
    const page = await suite.open();
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("hello");
    expect(await page.getByTestId("composer-count").innerText()).toBe(
      `5 / ${INPUT_LIMIT.toLocaleString("en-US")} characters`,
    );
    await box.fill("x".repeat(INPUT_LIMIT + 1));
    await expect
      .poll(() => page.getByTestId("composer-count").innerText())
      .toContain("Too long to send");
    expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    await box.press("Enter");
    expect((await box.inputValue()).length).toBe(INPUT_LIMIT + 1);
    expect(await page.getByTestId("live-run").count()).toBe(0);
  });

  it("sends with Enter, adds a line with Shift+Enter, and says it starts a new session", async () => {
    await suite.useModel(answer("Two lines received."));
    const page = await suite.open(`?session=${suite.seeded.english}`);
    const banner = page.getByTestId("new-session-banner");
    await expect
      .poll(() => banner.innerText())
      .toContain(`Sending starts a new session (not ${suite.seeded.english.slice(0, 8)}`);
    expect(await page.getByTestId("composer-hint").innerText()).toContain(
      "Enter to send · Shift+Enter for a new line",
    );
    const box = page.getByRole("textbox", { name: "Message" });
    await box.click();
    await page.keyboard.type("line one");
    await page.keyboard.press("Shift+Enter");
    await page.keyboard.type("line two");
    expect(await box.inputValue()).toBe("line one\nline two");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByTestId("run-status").innerText()).toBe("completed");
    expect(await box.inputValue()).toBe("");
    const sessionId = new URL(page.url()).searchParams.get("session") ?? "";
    expect(sessionId).not.toBe(suite.seeded.english);
    const session = await createSessionStore({ home: suite.seeded.home }).readSession(sessionId);
    expect(session.events).toContainEqual(
      expect.objectContaining({ role: "user", content: "line one\nline two" }),
    );
    // Offered the other way round: continue the open session instead.
    const other = await suite.open(`?session=${suite.seeded.english}`);
    await other.getByRole("button", { name: /Continue .* instead/ }).click();
    expect(await other.getByTestId("continue-banner").innerText()).toContain(
      `Continuing session ${suite.seeded.english.slice(0, 8)}`,
    );
  });

  it("ends the run card on completed after Deny, with Send back", async () => {
    await suite.useModel(
      scriptedRecording()
        .system("s")
        .user("q")
        .toolCall("run_command", { command: "rm -rf build" })
        .toolResult("denied")
        .text("Understood, I will not delete it.")
        .end()
        .build(),
    );
    const page = await suite.open();
    await page.getByRole("textbox", { name: "Message" }).fill("Clean the build");
    await page.getByRole("button", { name: "Send" }).click();
    const approval = page.getByTestId("approval");
    await expect.poll(() => approval.innerText().catch(() => "")).toContain("run_command");
    await approval.getByRole("button", { name: "Deny" }).click();
    await expect
      .poll(() => page.getByTestId("live-run").innerText())
      .toContain("Understood, I will not delete it.");
    await expect.poll(() => page.getByTestId("run-status").innerText()).toBe("completed");
    // Stays completed: the approve request's late reply changes nothing.
    await page.waitForTimeout(300);
    expect(await page.getByTestId("run-status").innerText()).toBe("completed");
    expect(await page.getByRole("button", { name: "Send" }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Cancel" }).count()).toBe(0);
  });

  it("scrolls a long session to the new turn", async () => {
    const big = writeSession(suite.seeded.home, 3_000, 11, new Date("2025-12-02T00:00:00Z"), {
      chinese: false,
      cwd: suite.seeded.work,
    });
    await suite.useModel(answer("Appended at the very end."));
    const page = await suite.open(`?session=${big}`);
    await page.getByRole("button", { name: "Continue this session" }).click();
    await page.getByRole("textbox", { name: "Message" }).fill("One more question");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByTestId("run-status").innerText()).toBe("completed");
    await expect
      .poll(() => page.getByTestId("timeline").innerText(), { timeout: 15_000 })
      .toContain("Appended at the very end.");
  });

  it("sets and clears the session goal from the page, shown on top", async () => {
    const page = await suite.open(`?session=${suite.seeded.chinese}`);
    const goal = page.getByTestId("session-goal");
    await goal.getByRole("button", { name: "Set a goal" }).click();
    await page.getByRole("textbox", { name: "Goal" }).fill("Ship the teapot by Friday");
    await page.getByRole("button", { name: "Save goal" }).click();
    await expect
      .poll(() => goal.innerText().catch(() => ""))
      .toContain("Ship the teapot by Friday");
    const store = createSessionStore({ home: suite.seeded.home });
    expect((await store.readSession(suite.seeded.chinese)).goal).toBe("Ship the teapot by Friday");
    await goal.getByRole("button", { name: "Clear goal" }).click();
    await expect.poll(() => goal.innerText()).toBe("Set a goal");
    expect((await store.readSession(suite.seeded.chinese)).goal).toBeNull();
  });
});

describe("a run belongs to the server", () => {
  it("shows a live run in a second page that opens its session, which can cancel it", async () => {
    await suite.useModel(slowAnswer("part", 300), true);
    const first = await suite.open(`?session=${suite.seeded.rich}`);
    await first.getByRole("button", { name: "Continue this session" }).click();
    await first.getByRole("textbox", { name: "Message" }).fill("Take your time");
    await first.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => first.getByTestId("run-status").innerText()).toBe("running");
    await first.close();

    // The first page is gone; the run is not. A page that opens the session follows it.
    const second = await suite.open(`?session=${suite.seeded.rich}`);
    await expect.poll(() => second.getByTestId("run-status").innerText()).toBe("running");
    await expect.poll(() => second.getByTestId("live-run").innerText()).toContain("part0 part1");
    await second.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => second.getByTestId("run-status").innerText()).toBe("cancelled");
    const session = await createSessionStore({ home: suite.seeded.home }).readSession(
      suite.seeded.rich,
    );
    expect(session.events.at(-1)).toMatchObject({ type: "turn/end", status: "cancelled" });
  });

  it("survives a reload during an approval: the approval card comes back and approving completes the run", async () => {
    const command = "echo reattached > reattached.txt #\u202E hidden";
    await suite.useModel(
      scriptedRecording()
        .system("s")
        .user("q")
        .toolCall("run_command", { command })
        .toolResult("ok")
        .text("Wrote reattached.txt after the reload.")
        .end()
        .build(),
    );
    const page = await suite.open();
    await page.getByRole("textbox", { name: "Message" }).fill("Write a file, then I reload");
    await page.getByRole("button", { name: "Send" }).click();
    const approval = page.getByTestId("approval");
    await expect.poll(() => approval.innerText().catch(() => "")).toContain("run_command");
    const before = await approval.innerText();
    expect(await page.getByTestId("approval-warning").count()).toBe(1);
    const sessionId = new URL(page.url()).searchParams.get("session");
    expect(sessionId).not.toBeNull();

    await page.reload();
    // The run went on without the page; the same card, hidden characters flagged, comes back.
    await expect.poll(() => approval.innerText().catch(() => "")).toBe(before);
    expect(await page.getByTestId("approval-command").innerText()).toContain("\\u{202E}");
    expect(await page.getByTestId("approval-warning").count()).toBe(1);
    expect(await page.getByTestId("run-status").innerText()).toBe("waiting_approval");
    await approval.getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => page.getByTestId("run-status").innerText()).toBe("completed");
    expect(await page.getByTestId("live-run").innerText()).toContain(
      "Wrote reattached.txt after the reload.",
    );
    expect(readFileSync(path.join(suite.seeded.work, "reattached.txt"), "utf8")).toBe(
      "reattached\n",
    );
    const session = await createSessionStore({ home: suite.seeded.home }).readSession(
      sessionId ?? "",
    );
    expect(session.events.find((event) => event.type === "approval/decision")).toMatchObject({
      decision: "allow_once",
    });
    expect(session.events.at(-1)).toMatchObject({ type: "turn/end", status: "completed" });
  });
});
