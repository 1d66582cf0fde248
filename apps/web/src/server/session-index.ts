// The memory index and its helpers live in the host (the CLI reads a read-only home with it too).
export {
  coalesce,
  createMemoryIndex,
  type LogFileState,
  type SessionIndex,
  scanLogFiles,
} from "@tapedeck/host";
