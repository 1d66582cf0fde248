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

/**
 * A schema object that stands for `get()`'s schema, built on first use: every property read,
 * method call, `instanceof` and key listing is forwarded to the built schema (methods are bound
 * to it, so `.optional()` or `.safeParse()` act on the real schema). For exported schema
 * constants whose modules are imported by commands that never validate with them (the session
 * log's event schemas: `tapedeck sessions search` validates only its hits' types). Inside a
 * package, compose and parse with the getter itself, not the stand-in.
 *
 * @example
 * const message = lazySchema(() => z.looseObject({ type: z.literal("message") }));
 * export const messageSchema = lazySchemaObject(message);
 */
export function lazySchemaObject<T extends object>(get: () => T): T {
  return new Proxy({} as T, {
    get(_target, key) {
      const real = get();
      const value = Reflect.get(real, key);
      return typeof value === "function" && key !== "constructor" ? value.bind(real) : value;
    },
    set: (_target, key, value) => Reflect.set(get(), key, value),
    has: (_target, key) => Reflect.has(get(), key),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor(_target, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(get(), key);
      // A proxy may not report a non-configurable property its (empty) target lacks.
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(get(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(get(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
  });
}
