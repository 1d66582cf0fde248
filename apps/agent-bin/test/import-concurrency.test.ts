/**
 * Two `tapedeck import` processes at once over the same folder (issue #14: "Two imports at once
 * are safe (store locks)"): sources new to the home, then the same sources grown. Each session is
 * created once and appended once, whichever process wins each race, and every log verifies.
 */
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cliContext } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const sample = fileURLToPath(
  new URL("../../../packages/importers/__fixtures__/samples/pi", import.meta.url),
);

interface Counts {
  counts: { created: number; appended: number; forked: number; unchanged: number };
}

describe("two tapedeck import processes at once", () => {
  it("create each session once, then append each once, and leave logs that verify", async () => {
    const { workspace, cli } = await cliContext();
    const dir = path.join(workspace.root, "pi");
    const [folder] = readdirSync(sample);
    const [name] = readdirSync(path.join(sample, folder!));
    const lines = readFileSync(path.join(sample, folder!, name!), "utf8")
      .trimEnd()
      .split("\n");
    // Eight sessions: the sample under eight ids, cut inside its second turn.
    const files = Array.from({ length: 8 }, (_, index) => {
      const target = path.join(dir, `copy${index}`);
      cpSync(path.join(sample, folder!), target, { recursive: true });
      return path.join(target, name!);
    });
    const write = (count: number) =>
      files.forEach((file, index) => {
        const header = lines[0]!.replace(
          /"id":"[^"]+"/,
          `"id":"0000000${index}-0000-4000-8000-000000000000"`,
        );
        writeFileSync(file, `${[header, ...lines.slice(1, count)].join("\n")}\n`);
      });
    const both = async () => {
      const runs = await Promise.all([
        cli(["import", "pi", dir, "--json"]),
        cli(["import", "pi", dir, "--json"]),
      ]);
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      const [a, b] = runs.map((run) => (JSON.parse(run.stdout) as Counts).counts);
      return {
        created: a!.created + b!.created,
        appended: a!.appended + b!.appended,
        forked: a!.forked + b!.forked,
        unchanged: a!.unchanged + b!.unchanged,
      };
    };
    write(70);
    expect(await both()).toEqual({ created: 8, appended: 0, forked: 0, unchanged: 8 });
    write(lines.length);
    expect(await both()).toEqual({ created: 0, appended: 8, forked: 0, unchanged: 8 });
    const verify = await cli(["sessions", "verify", "--all"]);
    expect(verify.stdout + verify.stderr).toContain("8 checked, 0 damaged");
  });
});
