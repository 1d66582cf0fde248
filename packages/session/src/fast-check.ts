import type { z } from "zod";

/** A compiled acceptance test: true when zod would accept the value unchanged. */
export type FastCheck = (value: unknown) => boolean;

interface Def {
  type: string;
  checks?: ReadonlyArray<{ _zod: { def: CheckDef } }>;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: readonly z.ZodType[];
  values?: readonly unknown[];
  entries?: Record<string, unknown>;
}

interface CheckDef {
  check: string;
  format?: string;
  minimum?: number;
  value?: number;
  inclusive?: boolean;
  pattern?: RegExp;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/**
 * Compiles a zod schema into a plain predicate for the hot path of reading logs (zod's own parse
 * costs about as much as `JSON.parse` per line, and copies every object).
 *
 * The zod schema stays the single source of truth: this only understands the handful of schema
 * kinds the log format uses, returns `undefined` for anything else (the caller then uses zod),
 * and a value it refuses is re-parsed by zod for the error message. It must never accept what
 * zod refuses; a property test checks that on mutated log lines.
 */
export function compileFastCheck(schema: z.ZodType): FastCheck | undefined {
  const def = defOf(schema);
  const checks = def.checks ?? [];
  switch (def.type) {
    case "string":
      return compileString(checks);
    case "number":
      return compileNumber(checks);
    case "boolean":
      return checks.length === 0 ? (value) => typeof value === "boolean" : undefined;
    case "literal": {
      const values = def.values ?? [];
      if (values.length === 1) {
        const only = values[0];
        return (value) => value === only;
      }
      return (value) => values.includes(value);
    }
    case "enum": {
      const values = new Set(Object.values(def.entries ?? {}));
      return (value) =>
        (typeof value === "string" || typeof value === "number") && values.has(value);
    }
    case "optional": {
      const inner = def.innerType && compileFastCheck(def.innerType);
      return inner && ((value) => value === undefined || inner(value));
    }
    case "nullable": {
      const inner = def.innerType && compileFastCheck(def.innerType);
      return inner && ((value) => value === null || inner(value));
    }
    case "array":
      return compileArray(def, checks);
    case "union":
      return compileUnion(def);
    case "object":
      return compileObject(def, checks);
    default:
      return undefined;
  }
}

type Checks = NonNullable<Def["checks"]>;

/** `z.string()` with at most a minimum length and a (non-global, non-sticky) regex. */
function compileString(checks: Checks): FastCheck | undefined {
  let minimum = 0;
  let pattern: RegExp | undefined;
  for (const check of checks) {
    const c = check._zod.def;
    if (c.check === "min_length" && c.minimum !== undefined) minimum = c.minimum;
    else if (
      c.check === "string_format" &&
      c.format === "regex" &&
      c.pattern &&
      !c.pattern.global &&
      !c.pattern.sticky
    )
      pattern = c.pattern;
    else return undefined;
  }
  if (pattern) {
    const regex = pattern;
    return (value) => typeof value === "string" && value.length >= minimum && regex.test(value);
  }
  return minimum === 0
    ? (value) => typeof value === "string"
    : (value) => typeof value === "string" && value.length >= minimum;
}

/** `z.number()` / `z.int()` with at most one lower bound. */
function compileNumber(checks: Checks): FastCheck | undefined {
  let integer = false;
  let bound = Number.NEGATIVE_INFINITY;
  let inclusive = true;
  for (const check of checks) {
    const c = check._zod.def;
    if (c.check === "number_format" && c.format === "safeint") integer = true;
    else if (
      c.check === "greater_than" &&
      c.value !== undefined &&
      bound === Number.NEGATIVE_INFINITY
    ) {
      bound = c.value;
      inclusive = c.inclusive === true;
    } else return undefined;
  }
  if (integer) {
    return inclusive
      ? (value) => typeof value === "number" && Number.isSafeInteger(value) && value >= bound
      : (value) => typeof value === "number" && Number.isSafeInteger(value) && value > bound;
  }
  return inclusive
    ? (value) => typeof value === "number" && Number.isFinite(value) && value >= bound
    : (value) => typeof value === "number" && Number.isFinite(value) && value > bound;
}

/** `z.array(element)` with at most a minimum length. */
function compileArray(def: Def, checks: Checks): FastCheck | undefined {
  const element = def.element && compileFastCheck(def.element);
  if (!element) return undefined;
  let minimum = 0;
  for (const check of checks) {
    const c = check._zod.def;
    if (c.check === "min_length" && c.minimum !== undefined) minimum = c.minimum;
    else return undefined;
  }
  return (value) => {
    if (!Array.isArray(value) || value.length < minimum) return false;
    for (const item of value) if (!element(item)) return false;
    return true;
  };
}

/** `z.union(options)` whose every option compiles. */
function compileUnion(def: Def): FastCheck | undefined {
  const options = (def.options ?? []).map(compileFastCheck);
  if (options.some((option) => option === undefined)) return undefined;
  const compiled = options as FastCheck[];
  return (value) => {
    for (const option of compiled) if (option(value)) return true;
    return false;
  };
}

/** `z.object(shape)` (or a `z.looseObject`, catchall unknown) whose every field compiles. */
function compileObject(def: Def, checks: Checks): FastCheck | undefined {
  if (checks.length > 0) return undefined;
  if (def.catchall !== undefined && defOf(def.catchall).type !== "unknown") return undefined;
  const fields: Array<[string, FastCheck]> = [];
  for (const [key, field] of Object.entries(def.shape ?? {})) {
    const compiled = compileFastCheck(field);
    if (!compiled) return undefined;
    fields.push([key, compiled]);
  }
  const keys = fields.map(([key]) => key);
  const fieldChecks = fields.map(([, check]) => check);
  const count = keys.length;
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
    const record = value as Record<string, unknown>;
    for (let index = 0; index < count; index += 1) {
      if (!fieldChecks[index]!(record[keys[index]!])) return false;
    }
    return true;
  };
}
