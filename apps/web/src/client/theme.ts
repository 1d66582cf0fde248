/**
 * Light, dark or the system's choice (`prefers-color-scheme`), kept in `localStorage` and, for the
 * server's first view of a page (drawn before this script runs), in the cookie
 * {@link THEME_COOKIE}.
 */
import { useCallback, useState } from "react";
import { THEME_COOKIE } from "../shared/page-ids";

/** The user's choice; `system` follows `prefers-color-scheme`. */
export type Theme = "system" | "light" | "dark";

const key = "tapedeck.theme";
const order: Theme[] = ["system", "light", "dark"];

function stored(): Theme {
  try {
    const value = localStorage.getItem(key);
    return value === "light" || value === "dark" ? value : "system";
  } catch {
    return "system";
  }
}

/**
 * Sets `data-theme` on `<html>` (none for `system`, so the media query decides), and the cookie
 * that tells the server (a year; none for `system`).
 */
export function applyTheme(theme: Theme = stored()): void {
  if (theme === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  const age = theme === "system" ? 0 : 31_536_000;
  // biome-ignore lint/suspicious/noDocumentCookie: a fixed name and one of three fixed words; the Cookie Store API is not in every browser
  document.cookie = `${THEME_COOKIE}=${theme}; path=/; max-age=${age}; SameSite=Strict`;
}

/** The current theme and a toggle that cycles system → light → dark. */
export function useTheme(): { theme: Theme; next(): void } {
  const [theme, setTheme] = useState<Theme>(stored);
  const next = useCallback(() => {
    setTheme((current) => {
      const value = order[(order.indexOf(current) + 1) % order.length] ?? "system";
      try {
        if (value === "system") localStorage.removeItem(key);
        else localStorage.setItem(key, value);
      } catch {
        // Storage may be disabled; the choice then lasts for this page only.
      }
      applyTheme(value);
      return value;
    });
  }, []);
  return { theme, next };
}
