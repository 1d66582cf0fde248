/**
 * A schema built on first use. Building a zod schema costs CPU at import (every `z.…()` call
 * makes objects); a module imported by a command that never validates with it pays that on every
 * start. Wrapping the builder keeps the schema exactly as strict; only the moment it is built
 * moves (issue #12: `tapedeck sessions list` loads the agent's tool schemas it never uses).
 *
 * @example
 * const bodySchema = lazySchema(() => z.strictObject({ model: z.string() }));
 * bodySchema().parse(value);
 */
export function lazySchema<T>(build: () => T): () => T {
  let built: { schema: T } | undefined;
  return () => {
    built ??= { schema: build() };
    return built.schema;
  };
}
