import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { searchFilesTool } from "../src/index";
import { runTool, type Sandbox, sandbox, toolContext } from "./helpers";

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
  await writeFile(path.join(box.cwd, "a.txt"), `${"a".repeat(40)}!\nfine line\n`);
});
afterEach(async () => {
  vi.unstubAllEnvs();
});

function search(pattern: string, signal = new AbortController().signal): Promise<string> {
  return runTool(searchFilesTool, { pattern }, { ...toolContext(box), signal });
}

describe("search_files with a catastrophic pattern (issue #11 item 4)", () => {
  it("stops at its deadline with one sentence, and the event loop stays free meanwhile", async () => {
    vi.stubEnv("TAPEDECK_SEARCH_TIMEOUT_MS", "300");
    const started = Date.now();
    let ticks = 0;
    const ticker = setInterval(() => {
      ticks += 1;
    }, 20);
    await expect(search("(a+)+$")).rejects.toThrow(
      /Search stopped after 0.3 s in a.txt: the pattern is too slow/,
    );
    clearInterval(ticker);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(ticks).toBeGreaterThan(3);
  });

  it("ends at once when the run is cancelled", async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    await expect(search("(a+)+$", controller.signal)).rejects.toThrow("Search cancelled.");
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("still finds ordinary matches", async () => {
    expect(await search("fine")).toBe("a.txt:2: fine line");
  });
});
