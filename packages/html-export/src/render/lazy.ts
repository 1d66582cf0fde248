/**
 * Parts of the rendering the page loads on demand (Markdown, code highlighting), so its first
 * rows do not wait for them: shown plain at once, rendered richly when the chunk arrives. The
 * HTML export provides the same parts up front ({@link readySource}) and renders them at once.
 */
import { useEffect, useState } from "react";

/** A part loaded once: `ready` once loaded (or given up front), `load` resolves it. */
export interface LazySource<T> {
  readonly ready: T | null;
  load(): Promise<T>;
}

/** A part the page fetches on first use (`load` is called at most once per page). */
export function lazySource<T>(load: () => Promise<T>): LazySource<T> {
  let loaded: T | null = null;
  let loading: Promise<T> | null = null;
  return {
    get ready() {
      return loaded;
    },
    load() {
      loading ??= load().then((value) => {
        loaded = value;
        return value;
      });
      return loading;
    },
  };
}

/** A part available at once (the export, server-side rendering). */
export function readySource<T>(value: T): LazySource<T> {
  return { ready: value, load: () => Promise.resolve(value) };
}

/**
 * The part once it is available (null until then); asks for it only when `wanted`. A part that
 * fails to load stays null: the plain rendering remains, which shows the same text.
 */
export function useLazy<T>(source: LazySource<T>, wanted = true): T | null {
  // A function part must not be taken for a state updater: it is kept in a box.
  const [box, setBox] = useState<{ value: T } | null>(() =>
    source.ready === null ? null : { value: source.ready },
  );
  useEffect(() => {
    if (!wanted || box !== null) return;
    let live = true;
    source.load().then(
      (value) => {
        if (live) setBox({ value });
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [wanted, box, source]);
  return box === null ? null : box.value;
}
