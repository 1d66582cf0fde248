/** `tapedeck sessions export --html` over the built binary. */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { cliContext, homeLogs, tapedeckBinary } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const SESSION = "0193b6e2-7c1a-7d3e-9f00-0000000000e1";

async function seed(home: string, cwd: string) {
  const log = eventLogBuilder({ sessionId: SESSION, cwd })
    .system("You are Tapedeck.")
    .turn()
    .user("Explain **the kettle** <img src=x onerror=alert(1)> \u202Eevil\u202C")
    .call("run_command", { command: "ls" })
    .output("\u001b[32mok\u001b[0m")
    .assistant("It boils.")
    .end();
  homeLogs(home).write(log.jsonl());
}

describe("sessions export --html", () => {
  it("prints one self-contained HTML page with the safe rendering", async () => {
    const { workspace, cli } = await cliContext();
    await seed(workspace.home, workspace.cwd);
    const result = await cli(["sessions", "export", "--html", SESSION.slice(0, 8)]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const html = result.stdout;
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain("<strong>the kettle</strong>");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).not.toMatch(/[\u202A-\u202E]/);
    expect(html).toContain("\\u{202E}");
    expect(html).toContain('class="ansi-fg-2"');
  });

  it("writes the page to a file with -o", async () => {
    const { workspace, cli } = await cliContext();
    await seed(workspace.home, workspace.cwd);
    const file = path.join(workspace.root, "kettle.html");
    const result = await cli(["sessions", "export", SESSION, "--html", "-o", file]);
    expect(result.code).toBe(0);
    expect(await readFile(file, "utf8")).toContain("It boils.");
  });

  it("keeps React's server renderer out of the bundle every command loads", async () => {
    const dist = path.dirname(tapedeckBinary());
    const chunks = (await readdir(dist)).filter((name) => name.endsWith(".mjs"));
    const withRenderer = [];
    for (const name of chunks)
      if ((await readFile(path.join(dist, name), "utf8")).includes("renderToStaticMarkup"))
        withRenderer.push(name);
    expect(withRenderer.length).toBeGreaterThan(0);
    expect(withRenderer).not.toContain("tapedeck.mjs");
    // Only ever reached through a dynamic import(): no static import of it anywhere.
    for (const name of chunks) {
      const text = await readFile(path.join(dist, name), "utf8");
      for (const renderer of withRenderer) {
        const mentions = text.split(`"./${renderer}"`).length - 1;
        const dynamic = text.split(`import("./${renderer}")`).length - 1;
        expect(mentions, `${name} imports ${renderer}`).toBe(dynamic);
      }
    }
  });
});
