/**
 * The page's TanStack Query client: what the sidebar fetches (session pages, event search pages,
 * workspaces) is cached and paged there, keyed by its filters, instead of by hand (a race
 * counter per list, cursors and page arrays in component state).
 */
import { QueryClient } from "@tanstack/react-query";

/** A fresh client (the page makes one; tests may make their own). */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // The server says what changed (`GET /api/live`): lists reload on its changes, not on
        // focus or a timer, and an error shows at once (no silent retries of a 400).
        refetchOnWindowFocus: false,
        refetchOnReconnect: false,
        retry: false,
        staleTime: Number.POSITIVE_INFINITY,
        // A list for other filters (or before the last live change) is dropped soon.
        gcTime: 30_000,
      },
    },
  });
}
