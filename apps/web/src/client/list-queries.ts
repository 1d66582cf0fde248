/**
 * The sidebar's lists as TanStack queries: sessions (or event hits) for the current filters, one
 * page of 40 (30) at a time by the server's cursor, and the workspaces. `refreshKey` (bumped by a
 * live change) is part of each key: a change starts the list again from its first page, and the
 * list on screen stays until that page has arrived (`keepPreviousData`). An answer for filters that
 * are no longer current never reaches the screen (the query of another key).
 */
import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { api, type EventFilters, type SessionFilters } from "./api";

/** Sessions for `filters`, paged by cursor; idle unless `enabled`. */
export function useSessionPages(filters: SessionFilters, refreshKey: number, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: ["sessions", filters, refreshKey],
    queryFn: ({ pageParam }) => api.sessions(filters, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    placeholderData: keepPreviousData,
    enabled,
  });
}

/** Event search hits for `filters`, paged by cursor; idle unless `enabled`. */
export function useEventPages(filters: EventFilters, refreshKey: number, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: ["events", filters, refreshKey],
    queryFn: ({ pageParam }) => api.events(filters, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    placeholderData: keepPreviousData,
    enabled,
  });
}

/** Sessions per workspace (the filter's options); an error leaves the options empty. */
export function useWorkspaces(refreshKey: number) {
  return useQuery({
    queryKey: ["workspaces", refreshKey],
    queryFn: () => api.workspaces(),
    placeholderData: keepPreviousData,
  });
}
