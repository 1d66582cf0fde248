import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { initToken } from "./api";
import { App } from "./app";
import "./styles.css";
import { applyTheme } from "./theme";

initToken();
applyTheme();
const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root");
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
