/**
 * The bundle's ACP SDK builds each schema on first use (`build/schemas-on-use.ts`, issue #12: the
 * SDK building its whole protocol at import was half of `tapedeck acp`'s start). Both forms of the
 * SDK's generated schema module are bundled here with the same esbuild tsup uses, and every schema
 * must answer every recorded ACP message (and broken variants of them) exactly as before.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { testTempDir } from "@tapedeck/test-harness";
import type { Options } from "tsup";
import { describe, expect, it } from "vitest";
import { acpSchemasOnUse, schemasOnUse } from "../build/schemas-on-use";

type Plugin = NonNullable<Options["esbuildPlugins"]>[number];
type EsbuildOptions = Parameters<NonNullable<Options["esbuildOptions"]>>[0];
type Schema = { safeParse(value: unknown): { success: boolean; data?: unknown; error?: unknown } };

const require = createRequire(import.meta.url);
/** The esbuild tsup bundles with (not a dependency of this package of its own). */
const esbuild: {
  build(options: EsbuildOptions & { write: false }): Promise<{ outputFiles: { text: string }[] }>;
} = createRequire(require.resolve("tsup"))("esbuild");
// The package entry is `dist/v1/stable/acp.js`.
const sdkDist = path.resolve(path.dirname(require.resolve("@agentclientprotocol/sdk")), "../..");
const snapshots = path.resolve(import.meta.dirname, "acp-scenarios/__snapshots__");

/** The SDK's stable schema module bundled into `folder`, with or without `plugins`. */
async function bundled(folder: string, name: string, plugins: Plugin[]) {
  const result = await esbuild.build({
    entryPoints: [path.join(sdkDist, "v1/schema/zod.gen.js")],
    bundle: true,
    format: "esm",
    platform: "node",
    write: false,
    plugins,
  });
  const file = path.join(folder, `${name}.mjs`);
  writeFileSync(file, result.outputFiles[0]!.text);
  return (await import(pathToFileURL(file).href)) as Record<string, Schema>;
}

/** Every `params` and `result` of the recorded ACP wire, and broken copies of each. */
function wireValues(): unknown[] {
  const values: unknown[] = [null, undefined, "text", 7, [], {}];
  for (const name of readdirSync(snapshots).filter((file) => file.endsWith(".wire.jsonl"))) {
    for (const line of readFileSync(path.join(snapshots, name), "utf8").split("\n")) {
      if (line === "") continue;
      const message = JSON.parse(line) as { params?: unknown; result?: unknown };
      for (const value of [message.params, message.result]) {
        if (value === null || typeof value !== "object") continue;
        values.push(value);
        for (const key of Object.keys(value)) {
          values.push({ ...value, [key]: undefined });
          values.push({ ...value, [key]: 42 });
          values.push({ ...value, [key]: { unexpected: true } });
        }
      }
    }
  }
  // One of each distinct value (the recordings repeat their updates).
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = value === undefined ? "undefined" : JSON.stringify(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** What a schema answers, as comparable text (an error's issues, not its stack). */
function answer(schema: Schema, value: unknown): string {
  const result = schema.safeParse(value);
  return result.success
    ? `ok ${JSON.stringify(result.data)}`
    : `error ${JSON.stringify((result.error as { issues: unknown }).issues)}`;
}

describe("the ACP SDK's schemas, built on first use", () => {
  it("answer every recorded message and its broken variants exactly as the SDK's own", async () => {
    const folder = testTempDir("tapedeck-acp-schemas-");
    const original = await bundled(folder, "original", []);
    const onUse = await bundled(folder, "on-use", [acpSchemasOnUse]);
    const names = Object.keys(original).filter((name) => /^z[A-Z]/.test(name));
    expect(names.length).toBeGreaterThan(150);
    expect(Object.keys(onUse).sort()).toEqual(Object.keys(original).sort());
    const values = wireValues();
    expect(values.length).toBeGreaterThan(300);
    let successes = 0;
    const differences: string[] = [];
    for (const name of names) {
      for (const value of values) {
        const expected = answer(original[name]!, value);
        if (answer(onUse[name]!, value) !== expected) {
          differences.push(`${name} on ${JSON.stringify(value)}`);
        }
        if (expected.startsWith("ok ")) successes += 1;
      }
    }
    expect(differences).toEqual([]);
    // The comparison covers accepted messages, not only refusals.
    expect(successes).toBeGreaterThan(names.length);
    // ≈ 240,000 parses: seconds on a quiet machine, more on a loaded one.
  }, 120_000);

  it("refuses a module with no schema constant, so an SDK layout change is not missed", () => {
    expect(() => schemasOnUse("export const version = 1;\n", "zod.gen.js")).toThrow(
      /no top-level zod schema constant/,
    );
  });

  it("keeps every statement but the schema initializers", () => {
    const source =
      'import * as z from "zod/v4";\n// note\nexport const zA = z.string();\nconst other = 1;\n';
    const rewritten = schemasOnUse(source, "zod.gen.js");
    expect(rewritten).toContain(
      "export const zA = __schemaOnUse(__lazySchema(() => (z.string())));",
    );
    expect(rewritten).toContain("// note\n");
    expect(rewritten).toContain("const other = 1;\n");
  });
});
