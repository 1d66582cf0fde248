import {
  appendFileSync,
  cpSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { importChanged } from "./import-changed";
import { COLD_PER_LOOK, HOT_MS } from "./source-watch";

const samples = fileURLToPath(new URL("../__fixtures__/samples", import.meta.url));

function setup() {
  const root = testTempDir("tapedeck-import-changed-");
  const claude = join(root, "user", ".claude", "projects");
  cpSync(join(samples, "claude-code"), claude, { recursive: true });
  const project = join(claude, "-home-marco-projects-spotter");
  const file = join(project, readdirSync(project)[0]!);
  const store = createSessionStore({ home: join(root, "home") });
  const look = (now?: number) =>
    importChanged({
      store,
      stateDir: join(root, "home", "import"),
      env: { HOME: join(root, "user") },
      ...(now === undefined ? {} : { now }),
    });
  return { root, claude, file, store, look };
}

describe("importChanged", () => {
  it("imports new and grown source files only, and nothing when nothing changed", async () => {
    const { claude, file, store, look } = setup();
    const whole = readFileSync(file, "utf8").split(/(?<=\n)/u);
    writeFileSync(file, whole.slice(0, 7).join(""));
    const first = await look();
    expect(first.summaries.map((summary) => summary.counts.created)).toEqual([1]);

    const idle = await look();
    expect(idle.summaries).toEqual([]);
    // The project folder and the one file, no more: nothing read.
    expect(idle.statted).toBe(1);

    writeFileSync(file, whole.join(""));
    const grown = await look();
    expect(grown.summaries[0]?.counts).toMatchObject({ appended: 1, created: 0, forked: 0 });

    const other = join(claude, "-other");
    cpSync(join(claude, "-home-marco-projects-spotter"), other, { recursive: true });
    const renamed = join(other, "aaaaaaaa-0000-4000-8000-000000000001.jsonl");
    writeFileSync(
      renamed,
      readFileSync(join(other, readdirSync(other)[0]!), "utf8").replaceAll(
        "55604662-cf2a-4331-851a-ec234028f8ca",
        "aaaaaaaa-0000-4000-8000-000000000001",
      ),
    );
    const added = await look();
    // The copy under its old name is the same source session (unchanged), the renamed one new.
    expect(added.summaries[0]?.counts).toMatchObject({ created: 1, forked: 0 });
    expect((await store.list()).length).toBe(2);
  });

  it("sees a session that grows after a long rest within a few looks", async () => {
    const { file, look } = setup();
    const day = Date.parse("2026-12-01T00:00:00.000Z");
    await look(day);
    // Last written two days ago: cold, statted a slice per look.
    const old = new Date(day - 2 * HOT_MS);
    utimesSync(file, old, old);
    await look(day);
    appendFileSync(file, "");
    const line = readFileSync(file, "utf8").split("\n").at(-2)!;
    appendFileSync(file, `${line.replace(/"uuid":"[^"]+"/u, '"uuid":"grown-1"')}\n`);
    utimesSync(file, old, old);
    const found = await look(day + 1000);
    expect(COLD_PER_LOOK).toBeGreaterThan(0);
    expect(found.summaries[0]?.counts.appended).toBe(1);
  });
});
