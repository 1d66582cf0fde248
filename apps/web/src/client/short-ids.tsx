/**
 * Session ids as the viewer shows them: the host's short ids (unique in the home, accepted back by
 * the CLI), never a fixed 8-character prefix, which two sessions of the same minute share. Ids a
 * payload carried are remembered as they arrive; any other is a query (`["short-id", id]`, asked
 * once per page: a short id only grows when a new session shares its prefix).
 */
import { useQuery } from "@tanstack/react-query";
import { api } from "./api";

const known = new Map<string, string>();

/** Keeps short ids a payload carried (`shortIds` of the session, lineage and list answers). */
export function rememberShortIds(shortIds: Readonly<Record<string, string>>): void {
  for (const [id, short] of Object.entries(shortIds)) known.set(id, short);
}

/**
 * The short id of a session; the whole id until the server has answered (or when it cannot:
 * a whole id is long, a cut one may name another session).
 */
export function useShortId(id: string | null | undefined): string {
  const wanted = id ?? "";
  const held = known.get(wanted);
  const query = useQuery({
    queryKey: ["short-id", wanted],
    queryFn: async () => {
      const answer = await api.shortIds([wanted]);
      rememberShortIds(answer.shortIds);
      return answer.shortIds[wanted] ?? wanted;
    },
    enabled: wanted !== "" && held === undefined,
  });
  if (wanted === "") return "";
  return held ?? query.data ?? wanted;
}

/** A session id shown as its short id (a component, so lists can use it per row). */
export function ShortId({ id }: { id: string }) {
  return <>{useShortId(id)}</>;
}
