/**
 * English messages for schemas written with `zod/mini`. `zod` (classic) registers English as the
 * default locale when its first schema is built; `zod/mini` registers none, so its issues would
 * read "Invalid input". Called by each `zod/mini` schema builder before it builds; like classic,
 * it only sets the default when no locale is configured.
 */
import { config, globalConfig } from "zod/v4/core";
import en from "zod/v4/locales/en.js";

/** Makes zod's English messages the default, unless a locale is configured already. */
export function useEnglishMessages(): void {
  if (!globalConfig.localeError) config(en());
}
