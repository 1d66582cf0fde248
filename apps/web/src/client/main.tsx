import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { STYLES } from "../render/styles";
import { initToken } from "./api";
import { App } from "./app";
import { applyTheme } from "./theme";

// The stylesheet is shared with the HTML export (one string, see render/styles.ts).
const style = document.createElement("style");
style.textContent = STYLES;
document.head.append(style);
initToken();
applyTheme();
const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root");
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
