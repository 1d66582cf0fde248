import { z } from "zod";
import { logSchemaOf } from "./schema";

/**
 * The JSON Schema of one log line (header or event), generated from the zod schemas. The file
 * `architecture/session-log.schema.json` is this value; a test fails when they differ.
 */
export function sessionLogJsonSchema(): Record<string, unknown> {
  const line = z.union([logSchemaOf.header(), logSchemaOf.event()]);
  const schema = z.toJSONSchema(line, { target: "draft-2020-12", unrepresentable: "any" });
  return {
    ...schema,
    $id: "https://tapedeck.dev/schemas/session-log-v1.json",
    title: "Tapedeck session log line (format version 1)",
    description:
      'One line of a Tapedeck session log: line 1 is the header (type "session"); every later line is one event. See architecture/session-log.md.',
  };
}
