// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright locators; innerText is the visible text on purpose.
/**
 * What a person approves is what runs, in Debian's Chromium (issue #11 item 1, leftover of item
 * 7): the approval card shows a command holding bidi overrides, ANSI escapes and control
 * characters whole and exactly, each hidden character as a visible escape, flagged "contains
 * hidden characters"; denying it runs nothing.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { scriptedRecording } from "@tapedeck/llm-replay";
import { hasHiddenCharacters, toVisibleText } from "@tapedeck/session";
import { createSessionStore } from "@tapedeck/session-store";
import { describe, expect, it } from "vitest";
import { setupBrowserSuite } from "./browser-harness";
import { seedHome } from "./seed";

const suite = setupBrowserSuite({
  seed: seedHome,
  model: true,
  serve: (seeded) => ({ cwd: seeded.work }),
});

describe("the approval card", () => {
  it("shows bidi overrides, ANSI escapes and control characters visibly escaped, flagged, nothing cut", async () => {
    // What the terminal attack of issue #11 used: erase the line, return, a harmless-looking
    // command, a right-to-left override, a bell, a zero-width space, and a tail past 80 characters.
    const command = `echo safe\u001b[2K\r npm test \u202Etxt.ssap\u202C \u0007\u200B; ${"#".repeat(80)}; touch SPOOF_RAN`;
    expect(hasHiddenCharacters(command)).toBe(true);
    const recording = scriptedRecording()
      .system("s")
      .user("q")
      .toolCall("run_command", { command })
      .toolResult("Command was not approved")
      .text("Not run.")
      .end()
      .build();
    await suite.useModel(recording);

    const page = await suite.open();
    await page.getByRole("textbox", { name: "Message" }).fill("Run the tests");
    await page.getByRole("button", { name: "Send" }).click();
    const card = page.getByTestId("approval");
    await expect
      .poll(() => card.innerText().catch(() => ""), { timeout: 20_000 })
      .toContain("run_command");

    const shown = page.getByTestId("approval-command");
    const text = await shown.innerText();
    const visible = toVisibleText(command).text;
    // Whole and exact: every character of the command, each hidden one as its escape.
    expect(text).toContain(visible);
    for (const visibleEscape of ["\\e[2K", "\\r", "\\u{202E}", "\\u{202C}", "\\x07", "\\u{200B}"]) {
      expect(text).toContain(visibleEscape);
    }
    expect(text).toContain("; touch SPOOF_RAN");
    // Nothing hidden reaches the page's text (no raw escape, override or zero-width character).
    const content = await shown.evaluate((element) => element.textContent ?? "");
    expect(hasHiddenCharacters(content)).toBe(false);
    expect(await page.getByTestId("approval-warning").innerText()).toContain(
      "contains hidden characters",
    );
    // Shown isolated from the surrounding text's direction, in monospace.
    const style = await shown.evaluate((element) => {
      const computed = getComputedStyle(element);
      return { unicodeBidi: computed.unicodeBidi, fontFamily: computed.fontFamily };
    });
    expect(style.unicodeBidi).toMatch(/isolate/);
    expect(style.fontFamily).toMatch(/mono/i);

    await card.getByRole("button", { name: "Deny" }).click();
    await expect.poll(() => page.getByTestId("run-status").innerText()).toBe("completed");
    expect(existsSync(path.join(suite.seeded.work, "SPOOF_RAN"))).toBe(false);
    const sessionId = new URL(page.url()).searchParams.get("session") ?? "";
    const session = await createSessionStore({ home: suite.seeded.home }).readSession(sessionId);
    expect(session.events.find((event) => event.type === "approval/decision")).toMatchObject({
      decision: "reject",
    });
  });
});
