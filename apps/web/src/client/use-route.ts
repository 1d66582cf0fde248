/** The page's route kept in step with the address bar (written on change, read back on Back/Forward). */
import { type RefObject, useCallback, useEffect, useRef, useState } from "react";
import { type Route, readRoute, writeRoute } from "./url";

/** What {@link useRoute} returns. */
export interface RouteState {
  route: Route;
  /** The route now, for callbacks that must not be re-created when it changes. */
  routeRef: RefObject<Route>;
  setRoute(next: Route): void;
}

/** The route of the page, from and to `?session=…&seq=…`. */
export function useRoute(): RouteState {
  const [route, setRouteState] = useState<Route>(readRoute);
  const routeRef = useRef(route);

  const setRoute = useCallback((next: Route) => {
    writeRoute(next, routeRef.current);
    routeRef.current = next;
    setRouteState(next);
  }, []);

  useEffect(() => {
    const onPop = () => {
      routeRef.current = readRoute();
      setRouteState(routeRef.current);
    };
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);

  return { route, routeRef, setRoute };
}
