/** The sidebar's head: the name (back to the welcome pane), the home folder, the theme switch. */
import { useTheme } from "./theme";

/** The brand row; `onHome` closes the open session. */
export function SidebarBrand({ home, onHome }: { home: string | undefined; onHome(): void }) {
  const theme = useTheme();
  return (
    <div className="brand">
      <button type="button" className="link brand-link" onClick={onHome}>
        Tapedeck
      </button>
      <span className="muted small">{home}</span>
      <button
        type="button"
        className="theme-toggle"
        data-testid="theme-toggle"
        onClick={theme.next}
        title="Colour theme: follow the system, light or dark"
      >
        Theme: {theme.theme}
      </button>
    </div>
  );
}
