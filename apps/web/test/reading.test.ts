// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright locators; innerText is the visible text on purpose.
/**
 * Reading a session in Debian's Chromium: safe Markdown, hidden characters, ANSI, numbered tool
 * output, diffs, compact rows, turn summaries and the token chart, dark mode, 1024 px, keyboard,
 * grouped search hits and a fork's own title.
 */
import { describe, expect, it } from "vitest";
import { setupBrowserSuite } from "./browser-harness";
import { seedHome } from "./seed";

const suite = setupBrowserSuite({ seed: seedHome });

describe("reading", () => {
  it("renders Markdown safely: http(s) links with their target, no images, raw HTML as text, highlighted code", async () => {
    const page = await suite.open(`?session=${suite.seeded.rich}`);
    const message = page.locator(".role-user .markdown").first();
    await message.waitFor();
    expect(await message.locator("strong").innerText()).toBe("this");
    const link = message.locator("a", { hasText: "the docs" });
    expect(await link.getAttribute("href")).toBe("https://example.com/docs");
    expect(await link.getAttribute("rel")).toContain("noopener");
    const text = await message.innerText();
    expect(text).toContain("the docs (https://example.com/docs)");
    // The javascript: link is not a link, and says where it pointed.
    expect(text).toContain("a trap (javascript:alert(1))");
    expect(await page.locator('a[href^="javascript"]').count()).toBe(0);
    // The image is not loaded: it is shown as a reference.
    expect(await page.locator("img").count()).toBe(0);
    expect(text).toContain("[image: logo] https://example.com/logo.png");
    expect(text).toContain("<b>raw html</b>");
    expect(await message.locator("b").count()).toBe(0);
    // The code block is highlighted once the highlighter chunk has loaded.
    await expect
      .poll(() => message.locator("pre.code-block .hljs-keyword").count())
      .toBeGreaterThan(0);
    expect(await message.locator("pre.code-block").innerText()).toContain(
      "const answer: number = 42;",
    );
  });

  it("shows the first rows before the Markdown renderer has arrived, as plain text, then as Markdown", async () => {
    const page = await suite.newPage();
    // The renderer's chunk (preloaded by the HTML, imported after the first rows) is held back.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/assets/markdown-*.js", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.rich}`);
    const message = page.locator(".role-user .markdown").first();
    await message.waitFor();
    // The text as written, hidden characters marked, nothing from it made markup.
    expect(await message.getAttribute("class")).toContain("markdown-pending");
    expect(await message.innerText()).toContain(
      "Look at **this** [the docs](https://example.com/docs)",
    );
    expect(await message.locator("strong, a").count()).toBe(0);
    release();
    await expect.poll(() => message.locator("strong").count()).toBe(1);
    expect(await message.getAttribute("class")).not.toContain("markdown-pending");
    expect(await message.innerText()).toContain("the docs (https://example.com/docs)");
  });

  it("shows bidi overrides, ANSI colours and control characters as visible marks", async () => {
    const page = await suite.open(`?session=${suite.seeded.hostile}`);
    const timeline = page.getByTestId("timeline");
    await expect.poll(() => timeline.innerText()).toContain("\\u{202E}");
    const text = await timeline.innerText();
    expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(text).toContain("echo safe \\u{202E}; 00 peels #\\u{202C}");
    expect(await timeline.locator(".ctrl-bidi").count()).toBeGreaterThan(0);
    // ANSI: colours rendered, the screen clear removed, the bell and NUL shown as escapes.
    const output = timeline.locator(".tool-output", { hasText: "teapot.test.ts" });
    expect(await output.locator(".ansi-fg-1").innerText()).toBe("FAIL");
    expect(await output.locator(".ansi-fg-2.ansi-bold").innerText()).toBe("PASS");
    const outputText = await output.innerText();
    expect(outputText).not.toContain("[2J");
    expect(outputText).not.toContain("\u001b");
    expect(outputText).toContain("\\x07\\x00 done");
  });

  it("numbers tool output lines, cuts long output with Show all, and diffs edit_file/write_file", async () => {
    const page = await suite.open(`?session=${suite.seeded.rich}`);
    const timeline = page.getByTestId("timeline");
    const command = timeline.locator(".row-tool", { hasText: "seq 120" });
    await command.locator("summary").click();
    const output = command.locator(".tool-output").last();
    expect(await output.locator(".line").count()).toBe(40);
    expect(await output.locator(".line").first().getAttribute("data-line")).toBe("1");
    await output.getByRole("button", { name: /Show all \(120 lines/ }).click();
    await expect.poll(() => output.locator(".line").count()).toBe(120);
    expect(
      await output.locator("pre").evaluate((node) => getComputedStyle(node).fontFamily),
    ).toMatch(/mono/i);
    const edit = timeline.locator(".row-tool", { hasText: "edit_file" });
    // Short outputs are open from the start.
    const diff = edit.getByTestId("diff");
    expect(await diff.locator(".diff-removed").innerText()).toContain("const boil = 90;");
    expect(await diff.locator(".diff-added").innerText()).toContain("const boil = 100;");
    expect(await diff.locator(".diff-same").innerText()).toContain("export { boil };");
    const write = timeline.locator(".row-tool", { hasText: "write_file" });
    expect(await write.getByTestId("diff").locator(".diff-added").count()).toBe(2);
  });

  it("shows row actions only on hover or focus, and every #seq links to its trace", async () => {
    const page = await suite.open(`?session=${suite.seeded.rich}`);
    const row = page.locator(".row-message.role-user").first();
    await row.waitFor();
    const actions = row.locator(".row-actions");
    expect(await actions.evaluate((node) => getComputedStyle(node).opacity)).toBe("0");
    await row.hover();
    await expect.poll(() => actions.evaluate((node) => getComputedStyle(node).opacity)).toBe("1");
    const seq = await row.getAttribute("data-seq");
    const link = actions.getByRole("link", { name: `#${seq}` });
    expect(await link.getAttribute("href")).toContain(`seq=${seq}`);
    await link.click();
    await expect.poll(() => new URL(page.url()).searchParams.get("seq")).toBe(seq);
    await expect
      .poll(() =>
        page
          .getByTestId("trace")
          .textContent()
          .catch(() => ""),
      )
      .toContain("Replacement chain");
    // A turn header keeps to one line: its buttons do not wrap it.
    const turn = page.locator(".row-turn").nth(1);
    expect((await turn.boundingBox())?.height ?? 0).toBeLessThan(60);
  });

  it("opens and highlights a deep-linked tool output", async () => {
    const page = await suite.open(`?session=${suite.seeded.rich}`);
    await page.locator(".row-tool").first().waitFor();
    const outputSeq = await page.evaluate(async (id) => {
      const view = (await (await fetch(`/api/sessions/${id}`)).json()) as {
        events: Array<{ seq: number; type: string; output?: string }>;
      };
      return view.events.find((event) => event.output === "Wrote notes.md")?.seq;
    }, suite.seeded.rich);
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.rich}&seq=${outputSeq}`);
    const selected = page.locator(".row.selected");
    await selected.waitFor();
    expect(await selected.innerText()).toContain("write_file");
    expect(await selected.locator("details").getAttribute("open")).not.toBeNull();
    expect(await selected.innerText()).toContain(`output #${outputSeq}`);
  });

  it("summarises each turn and charts tokens per turn", async () => {
    const page = await suite.open(`?session=${suite.seeded.rich}`);
    const summary = page.getByTestId("turn-summary").first();
    await summary.waitFor();
    expect(await summary.innerText()).toContain(
      "12.4 s · 2 model calls · 2,200 in / 80 out tokens (1,800 cached)",
    );
    const chart = page.getByTestId("token-chart");
    expect(await chart.locator("a").count()).toBe(2);
    expect(await chart.locator("title").first().textContent()).toBe(
      "Turn 1: 400 input, 1,800 cached, 80 output tokens",
    );
    await chart.locator("a").nth(1).click();
    const turnTwo = await page.locator(".row-turn").nth(2).getAttribute("data-seq");
    await expect.poll(() => new URL(page.url()).searchParams.get("seq")).toBe(turnTwo);
  });

  it("follows the system's dark mode and toggles it", async () => {
    const page = await suite.open(`?session=${suite.seeded.rich}`, { colorScheme: "dark" });
    await page.locator(".row").first().waitFor();
    const background = () =>
      page.evaluate(
        () => getComputedStyle(document.body.parentElement ?? document.body).backgroundColor,
      );
    expect(await background()).toBe("rgb(21, 23, 26)");
    // Highlighted code follows the system's dark mode too, not only the toggle.
    const keyword = page.locator("pre.code-block .hljs-keyword").first();
    await keyword.waitFor();
    const keywordColour = () => keyword.evaluate((node) => getComputedStyle(node).color);
    expect(await keywordColour()).toBe("rgb(212, 156, 255)");
    const toggle = page.getByTestId("theme-toggle");
    await toggle.click(); // system → light
    expect(await toggle.innerText()).toBe("Theme: light");
    expect(await background()).toBe("rgb(247, 247, 245)");
    expect(await keywordColour()).toBe("rgb(139, 63, 176)");
    await toggle.click(); // light → dark
    expect(await background()).toBe("rgb(21, 23, 26)");
    await page.reload();
    await page.locator(".row").first().waitFor();
    expect(await page.getByTestId("theme-toggle").innerText()).toBe("Theme: dark");
  });

  it("fits 1024 px without horizontal scrolling and collapses the trace panel", async () => {
    const page = await suite.open(`?session=${suite.seeded.rich}&seq=3`, {
      viewport: { width: 1024, height: 768 },
    });
    await page.getByTestId("trace-panel").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      1024,
    );
    const timeline = page.getByTestId("timeline");
    const narrow = (await timeline.boundingBox())?.width ?? 0;
    await page.getByRole("button", { name: "Trace", exact: true }).click();
    await expect.poll(() => page.getByTestId("trace-panel").count()).toBe(0);
    expect((await timeline.boundingBox())?.width ?? 0).toBeGreaterThan(narrow + 200);
  });

  it("moves between turns with j and k and focuses the search with /", async () => {
    const page = await suite.open(`?session=${suite.seeded.rich}`);
    await page.locator(".row-turn").nth(2).waitFor();
    const turns = await page
      .locator(".row-turn")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-seq")));
    await page.keyboard.press("j");
    await expect.poll(() => new URL(page.url()).searchParams.get("seq")).toBe(turns[0]);
    await page.keyboard.press("j");
    await expect.poll(() => new URL(page.url()).searchParams.get("seq")).toBe(turns[1]);
    await page.keyboard.press("j");
    await expect.poll(() => new URL(page.url()).searchParams.get("seq")).toBe(turns[2]);
    await page.keyboard.press("k");
    await expect.poll(() => new URL(page.url()).searchParams.get("seq")).toBe(turns[1]);
    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
      "Search",
    );
    // Typing in the box is not navigation.
    await page.keyboard.type("jk");
    expect(new URL(page.url()).searchParams.get("seq")).toBe(turns[1]);
  });

  it("groups search hits per session", async () => {
    const page = await suite.open("");
    await page.getByRole("searchbox", { name: "Search" }).fill("teapot");
    const groups = page.getByTestId("event-hits").locator(".hit-group");
    await expect.poll(() => groups.count()).toBeGreaterThan(1);
    const ids = await groups.evaluateAll((nodes) =>
      nodes.map((node) => node.getAttribute("data-session")),
    );
    expect(new Set(ids).size).toBe(ids.length);
    const english = groups.and(page.locator(`[data-session="${suite.seeded.english}"]`));
    expect(await english.locator(".hit-item").count()).toBeGreaterThan(1);
    expect(await english.locator(".hit-group-title").innerText()).toContain(
      "Please read the README",
    );
  });

  it("titles a fork with its own first prompt, not its parent's", async () => {
    const page = await suite.open(`?session=${suite.seeded.fork}`);
    await expect
      .poll(() =>
        page
          .getByTestId("session-title")
          .innerText()
          .catch(() => ""),
      )
      .toBe("Now check the teapot tests instead");
  });

  it("shows the session goal at the top", async () => {
    const page = await suite.open(`?session=${suite.seeded.rich}`);
    await expect
      .poll(() =>
        page
          .getByTestId("session-goal")
          .innerText()
          .catch(() => ""),
      )
      .toMatch(/^goal make the kettle boil at 100 edit · clear goal$/i);
  });
});
