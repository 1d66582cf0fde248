/**
 * Validators of a route's query and JSON body, as Hono middleware: the route's type then carries
 * what the client may send (the typed client, `client/api.ts`, is derived from it), and a bad value
 * is refused with the same one-sentence 400 as {@link parseInput} (the handler reads the parsed
 * value with `c.req.valid("query" | "json")`).
 */
import type { Context, Env, MiddlewareHandler, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONValue } from "hono/utils/types";
import type { z } from "zod";
import { jsonBody, parseInput } from "./http-errors";

/**
 * A query as the browser writes it: the schema's input, coerced numbers written as numbers (the
 * client turns them into text) and the access token left out (the client sends it as a header).
 */
export type UrlQuery<S extends z.ZodType> = {
  [K in Exclude<keyof z.input<S>, "token">]?: unknown extends z.input<S>[K]
    ? number | undefined
    : z.input<S>[K] | undefined;
};

/** Parses the URL's query with `schema` (400 naming the field); `c.req.valid("query")` reads it. */
export function queryInput<S extends z.ZodType>(
  schema: S,
): MiddlewareHandler<Env, string, { in: { query: UrlQuery<S> }; out: { query: z.output<S> } }> {
  return async (c, next) => {
    c.req.addValidatedData("query", parseInput(schema, c.req.query(), "query") as object);
    await next();
  };
}

/**
 * Parses the JSON body with `schema` (only `application/json`, see `jsonBody`; 400 naming the
 * field); `c.req.valid("json")` reads it.
 */
export function jsonInput<S extends z.ZodType>(
  schema: S,
): MiddlewareHandler<Env, string, { in: { json: z.input<S> }; out: { json: z.output<S> } }> {
  return async (c, next) => {
    c.req.addValidatedData("json", parseInput(schema, await jsonBody(c), "body") as object);
    await next();
  };
}

/**
 * `c.json(value, status)` with the answer typed as the value the handler built. Hono's own
 * `c.json` types it as `JSONParsed<T>`, which under `exactOptionalPropertyTypes` turns every
 * `x?: T` into `x?: T | undefined` and a recursive type (a lineage's `children`) into `JSONValue`;
 * the answers here are JSON data already (log events, index rows: no dates, maps or functions).
 */
export function answer<T, S extends ContentfulStatusCode = 200>(
  c: Context,
  value: T,
  status?: S,
): Response & TypedResponse<T, S, "json"> {
  return c.json(value as JSONValue, status ?? 200) as Response & TypedResponse<T, S, "json">;
}
