/** The deep-link state: `?session=…&seq=…`. */
export interface Route {
  session: string | null;
  seq: number | null;
}

/** Reads the route from the address bar. */
export function readRoute(): Route {
  const params = new URLSearchParams(window.location.search);
  const seq = Number(params.get("seq"));
  return {
    session: params.get("session"),
    seq: params.has("seq") && Number.isInteger(seq) && seq >= 0 ? seq : null,
  };
}

/** Writes the route to the address bar (a new history entry when the session changes). */
export function writeRoute(route: Route, previous: Route): void {
  const params = new URLSearchParams();
  if (route.session !== null) params.set("session", route.session);
  if (route.seq !== null) params.set("seq", String(route.seq));
  const search = params.toString();
  const url = `${window.location.pathname}${search === "" ? "" : `?${search}`}`;
  if (route.session !== previous.session) window.history.pushState(null, "", url);
  else window.history.replaceState(null, "", url);
}
