// Regenerates architecture/session-log.schema.json from the zod schemas.
import { writeFileSync } from "node:fs";
import { sessionLogJsonSchema } from "../src/index";

const target = new URL("../../../architecture/session-log.schema.json", import.meta.url);
writeFileSync(target, `${JSON.stringify(sessionLogJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
