// The page's own parser: the tests read the server's streams exactly as the browser does.
export { readSse, type SseMessage } from "../src/shared/sse";
