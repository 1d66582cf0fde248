/**
 * Session ids as the viewer shows them: the host's short ids (unique in the home, accepted back by
 * the CLI), never a fixed 8-character prefix, which two sessions of the same minute share.
 */
import { useEffect, useState } from "react";
import { api } from "./api";

const known = new Map<string, string>();
const asked = new Map<string, Promise<void>>();

/** Keeps short ids a payload carried (`shortIds` of the session, lineage and list answers). */
export function rememberShortIds(shortIds: Readonly<Record<string, string>>): void {
  for (const [id, short] of Object.entries(shortIds)) known.set(id, short);
}

function ask(id: string): Promise<void> {
  let pending = asked.get(id);
  if (pending === undefined) {
    pending = api
      .shortIds([id])
      .then((answer) => rememberShortIds(answer.shortIds))
      .catch(() => undefined);
    asked.set(id, pending);
  }
  return pending;
}

/**
 * The short id of a session; the whole id until the server has answered (or when it cannot:
 * a whole id is long, a cut one may name another session).
 */
export function useShortId(id: string | null | undefined): string {
  const [, setVersion] = useState(0);
  useEffect(() => {
    if (id === null || id === undefined || known.has(id)) return;
    let live = true;
    void ask(id).then(() => live && setVersion((version) => version + 1));
    return () => {
      live = false;
    };
  }, [id]);
  if (id === null || id === undefined) return "";
  return known.get(id) ?? id;
}

/** A session id shown as its short id (a component, so lists can use it per row). */
export function ShortId({ id }: { id: string }) {
  return <>{useShortId(id)}</>;
}
