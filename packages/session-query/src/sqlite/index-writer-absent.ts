/**
 * The index writer of a build that only reads a fresh index: `#index-writer` resolves here under
 * the `tapedeck-index-read-only` condition (see this package's `imports`), so such a bundle leaves
 * out the writer and, through its replay, the log's zod schemas. A sync that has work throws.
 */
import { TapedeckError } from "@tapedeck/session/core";

/** Stands in for `Indexer`; constructing it means the index needs a sync this build cannot do. */
export class Indexer {
  constructor() {
    throw new TapedeckError(
      "INDEX_WRITER_ABSENT",
      "The index needs a sync, and this build reads only a fresh index.",
    );
  }
}
