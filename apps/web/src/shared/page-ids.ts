/** Ids of elements the server puts in the page's HTML for its script (one spelling for both). */

/** The `<style>` with the page's stylesheet. */
export const STYLES_ID = "tapedeck-styles";

/** The `<script type="application/json">` holding the session page the first view was drawn from. */
export const FIRST_PAGE_ID = "tapedeck-first-page";
