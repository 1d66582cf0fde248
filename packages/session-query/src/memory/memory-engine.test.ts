import { describeQueryEngine } from "../testing";
import { createMemoryQueryEngine } from "./memory-engine";

describeQueryEngine("memory", async () => {
  const engine = createMemoryQueryEngine();
  return {
    engine,
    async write(header, events) {
      engine.ingest(header, events);
    },
    async remove(sessionId) {
      engine.remove(sessionId);
    },
    async close() {},
  };
});
