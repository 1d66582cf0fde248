import { BASE_STYLES } from "./styles/base";
import { COMPOSER_STYLES } from "./styles/composer";
import { CONTENT_STYLES } from "./styles/content";
import { HEADER_STYLES } from "./styles/header";
import { LATE_STYLES } from "./styles/late";
import { SESSION_STYLES } from "./styles/session";
import { SIDEBAR_STYLES } from "./styles/sidebar";
import { THEME_STYLES } from "./styles/theme";

/**
 * The one stylesheet: the page injects it at start (main.tsx) and the HTML export inlines it, so a
 * shared file looks the same in both. Kept as a string so the CLI's bundle needs no CSS loader.
 * The parts are joined in cascade order: a rule goes in the part of the page it styles, and a rule
 * that overrides another must stay after it (the narrow-screen layout is last).
 */
export const STYLES =
  THEME_STYLES +
  BASE_STYLES +
  SIDEBAR_STYLES +
  SESSION_STYLES +
  COMPOSER_STYLES +
  CONTENT_STYLES +
  HEADER_STYLES +
  LATE_STYLES;
