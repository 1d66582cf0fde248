import fs from "node:fs";
import { createRequire } from "node:module";
import type { Options } from "tsup";
import ts from "typescript";

type Plugin = NonNullable<Options["esbuildPlugins"]>[number];

/**
 * The session package's stand-ins for schemas built on first use (one rule, shared), through its
 * public `./core` entry, resolved from this app (the rewritten SDK module cannot resolve it).
 */
const lazySchemaModule = createRequire(__filename).resolve("@tapedeck/session/core");

/** A top-level schema constant of the ACP SDK's generated modules: `zInitializeRequest`, `zGuardX`. */
const schemaName = /^z[A-Z]/;

/**
 * Rewrites a module of top-level zod schema constants (the ACP SDK's `zod.gen.js` and
 * `guards.gen.js`) so that each constant named `zSomething` is a stand-in for its schema, built
 * the first time it is used (`lazySchemaObject` over `lazySchema`) instead of when the module is
 * evaluated. References between the constants stay as they are: a schema built on use builds the
 * ones it is made of then. Every other statement and every byte outside the initializers is kept.
 *
 * @param source - the module's JavaScript
 * @param fileName - its path, for the parser's positions and errors
 * @returns the rewritten module, which imports the stand-in helpers by absolute path
 * @throws Error when the module has no schema constant (the SDK's layout changed: the plugin
 *   must be revisited rather than silently do nothing)
 */
export function schemasOnUse(source: string, fileName: string): string {
  const file = ts.createSourceFile(
    fileName,
    source,
    ts.ScriptTarget.Latest,
    false,
    ts.ScriptKind.JS,
  );
  const initializers: { start: number; end: number }[] = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    if ((statement.declarationList.flags & ts.NodeFlags.Const) === 0) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || !schemaName.test(declaration.name.text)) continue;
      if (declaration.initializer === undefined) continue;
      initializers.push({
        start: declaration.initializer.getStart(file),
        end: declaration.initializer.end,
      });
    }
  }
  if (initializers.length === 0) {
    throw new Error(`${fileName}: no top-level zod schema constant to build on use`);
  }
  let rewritten = "";
  let at = 0;
  for (const { start, end } of initializers) {
    rewritten += `${source.slice(at, start)}__schemaOnUse(__lazySchema(() => (${source.slice(start, end)})))`;
    at = end;
  }
  rewritten += source.slice(at);
  const helpers = `import { lazySchema as __lazySchema, lazySchemaObject as __schemaOnUse } from ${JSON.stringify(lazySchemaModule)};\n`;
  return helpers + rewritten;
}

/**
 * The ACP SDK builds all of its zod schemas when it is imported (`zod.gen.js`: ≈ 180 constants,
 * about 2,000 zod schemas for the stable protocol, and the elicitation guards built from them):
 * about half of a `tapedeck acp` start before it could answer `initialize`. In the bundle each of
 * those constants stands for its schema and builds it on first use (`schemasOnUse`), so the agent
 * builds only the schemas of the messages it receives. What the schemas accept and answer is
 * unchanged (`test/acp-schemas-on-use.test.ts` parses the recorded ACP wire with both).
 */
export const acpSchemasOnUse: Plugin = {
  name: "acp-schemas-on-use",
  setup(build) {
    build.onLoad(
      { filter: /[\\/]@agentclientprotocol[\\/]sdk[\\/]dist[\\/].*[\\/](zod|guards)\.gen\.js$/ },
      (args) => ({
        contents: schemasOnUse(fs.readFileSync(args.path, "utf8"), args.path),
        loader: "js",
      }),
    );
  },
};
