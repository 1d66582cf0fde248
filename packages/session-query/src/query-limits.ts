/**
 * The limits and value lists of query input, shared by the zod schemas (`query-schema.ts`) and the
 * fast path that checks the common shapes without them (`query-fast-path.ts`): one number, one
 * place.
 */

/** Largest page any operation returns; larger `limit`s are capped to it. */
export const MAX_LIMIT = 200;
/** Page size when `limit` is not given. */
export const DEFAULT_LIMIT = 20;
/** Longest query `text`, in UTF-16 units (as zod's `maxLength` counts). */
export const MAX_TEXT_LENGTH = 2000;
/** Longest `cursor`, in UTF-16 units. */
export const MAX_CURSOR_LENGTH = 4096;
/** Longest highlight marker, in UTF-16 units. */
export const MAX_MARKER_LENGTH = 64;
/** Longest workspace id in a scope, in UTF-16 units. */
export const MAX_WORKSPACE_ID_LENGTH = 4096;
/** Most workspace ids in a scope. */
export const MAX_SCOPE_WORKSPACES = 1000;
/** The values of `prefix`. */
export const PREFIX_MATCHINGS = ["none", "last"] as const;
/** The values of an event query's `order`. */
export const EVENT_ORDERS = ["newest", "oldest", "relevance"] as const;
