/** Names the server and the page's script share (one spelling for both). */

/** The `<style>` with the page's stylesheet. */
export const STYLES_ID = "tapedeck-styles";

/** The `<script type="application/json">` holding the session page the first view was drawn from. */
export const FIRST_PAGE_ID = "tapedeck-first-page";

/** The cookie holding the chosen theme (`light`, `dark`; none: the system's), for the first view. */
export const THEME_COOKIE = "tapedeck-theme";
