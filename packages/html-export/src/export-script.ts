/**
 * The exported page's only script, inlined into the file: trace of any event (from the embedded
 * data), search in page, expand/collapse all. It builds every element with `textContent`, never
 * HTML. Written as a function so it is type-checked; `toString()` puts it in the page.
 *
 * One function over ~120 lines on purpose: `toString()` carries only this function's own text,
 * so every step it takes must be written inside it (its inner functions are those steps).
 */
export function exportScript(): void {
  const dataElement = document.getElementById("tapedeck-data");
  const data = JSON.parse(dataElement?.textContent ?? "{}") as {
    events: Array<[number, string, number[], number | null]>;
  };
  const bySeq = new Map<number, { label: string; sources: number[]; replacedBy: number | null }>();
  const citers = new Map<number, number[]>();
  for (const [seq, label, sources, replacedBy] of data.events) {
    bySeq.set(seq, { label, sources, replacedBy });
    for (const source of sources) {
      const list = citers.get(source);
      if (list === undefined) citers.set(source, [seq]);
      else list.push(seq);
    }
  }
  const panel = document.getElementById("trace");

  const element = (tag: string, text?: string, className?: string): HTMLElement => {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className !== undefined) node.className = className;
    return node;
  };
  const seqLink = (seq: number): HTMLElement => {
    const link = element("a", `#${seq}`, "seq") as HTMLAnchorElement;
    link.href = `#e-${seq}`;
    return link;
  };
  const list = (title: string, seqs: Array<[number, string]>, empty: string): HTMLElement[] => {
    const items = element("ul");
    for (const [seq, extra] of seqs) {
      const item = element("li");
      item.append(seqLink(seq), ` ${extra}${bySeq.get(seq)?.label ?? "(not in this log)"}`);
      items.append(item);
    }
    return [element("h3", title), seqs.length === 0 ? element("div", empty, "muted small") : items];
  };

  const rowOf = (seq: number): HTMLElement | null => {
    const exact = document.getElementById(`e-${seq}`);
    if (exact !== null) return exact;
    let best: HTMLElement | null = null;
    for (const row of Array.from(document.querySelectorAll<HTMLElement>("[data-anchor]"))) {
      if (Number(row.dataset.anchor) <= seq) best = row;
      else break;
    }
    return best;
  };

  const showTrace = (seq: number) => {
    if (panel === null) return;
    const entry = bySeq.get(seq);
    panel.replaceChildren();
    const heading = element("h2", `Trace of #${seq}`);
    panel.append(heading);
    if (entry === undefined) {
      panel.append(element("div", "This event is not in the exported log.", "muted small"));
      return;
    }
    panel.append(element("div", entry.label, "muted small"));
    const chain: Array<[number, string]> = [[seq, ""]];
    const seen = new Set<number>([seq]);
    let next = entry.replacedBy;
    while (next !== null && !seen.has(next)) {
      seen.add(next);
      chain.push([next, ""]);
      next = bySeq.get(next)?.replacedBy ?? null;
    }
    panel.append(...list("Replacement chain", chain, ""));
    panel.append(
      ...list(
        "Cites",
        entry.sources.map((source) => [source, ""]),
        "Cites nothing.",
      ),
    );
    const citedBy: Array<[number, string]> = [];
    const visited = new Set<number>([seq]);
    let frontier = [seq];
    for (let depth = 1; frontier.length > 0; depth += 1) {
      const found: number[] = [];
      for (const cited of frontier)
        for (const citer of citers.get(cited) ?? [])
          if (!visited.has(citer)) {
            visited.add(citer);
            found.push(citer);
          }
      found.sort((a, b) => a - b);
      for (const citer of found) citedBy.push([citer, depth > 1 ? `(depth ${depth}) ` : ""]);
      frontier = found;
    }
    panel.append(...list("Cited by", citedBy, "Nothing cites this event."));
  };

  let selected: HTMLElement | null = null;
  const follow = () => {
    const match = /^#e-(\d+)$/.exec(window.location.hash);
    if (match === null) return;
    const seq = Number(match[1]);
    showTrace(seq);
    const row = rowOf(seq);
    if (row === null) return;
    for (let node: HTMLElement | null = row; node !== null; node = node.parentElement)
      if (node instanceof HTMLDetailsElement) node.open = true;
    selected?.classList.remove("selected");
    selected = row.querySelector<HTMLElement>(".row") ?? row;
    selected.classList.add("selected");
    for (const details of Array.from(selected.querySelectorAll("details"))) details.open = true;
    row.scrollIntoView({ block: "center" });
  };
  window.addEventListener("hashchange", follow);
  follow();

  const turns = () => Array.from(document.querySelectorAll<HTMLDetailsElement>("details.turn"));
  document.getElementById("expand-all")?.addEventListener("click", () => {
    for (const turn of turns()) turn.open = true;
  });
  document.getElementById("collapse-all")?.addEventListener("click", () => {
    for (const turn of turns()) turn.open = false;
  });

  // Search in page: rows holding every word are marked; Enter goes to the next one.
  const search = document.getElementById("search") as HTMLInputElement | null;
  const count = document.getElementById("search-count");
  let hits: HTMLElement[] = [];
  let current = -1;
  let texts: Array<[HTMLElement, string]> | null = null;
  const run = () => {
    texts ??= Array.from(document.querySelectorAll<HTMLElement>(".export-timeline .row")).map(
      (row) => [row, (row.textContent ?? "").toLowerCase()],
    );
    for (const hit of hits) hit.classList.remove("search-hit");
    const words = (search?.value ?? "").toLowerCase().split(/\s+/).filter(Boolean);
    hits =
      words.length === 0
        ? []
        : texts
            .filter(([, text]) => words.every((word) => text.includes(word)))
            .map(([row]) => row);
    for (const hit of hits) hit.classList.add("search-hit");
    current = -1;
    if (count !== null)
      count.textContent =
        words.length === 0 ? "" : `${hits.length} matching event${hits.length === 1 ? "" : "s"}`;
  };
  let timer = 0;
  search?.addEventListener("input", () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(run, 120);
  });
  search?.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    window.clearTimeout(timer);
    run();
    if (hits.length === 0) return;
    current = (current + (event.shiftKey ? hits.length - 1 : 1)) % hits.length;
    const hit = hits[current];
    if (hit === undefined) return;
    for (let node: HTMLElement | null = hit; node !== null; node = node.parentElement)
      if (node instanceof HTMLDetailsElement) node.open = true;
    hit.scrollIntoView({ block: "center" });
    if (count !== null) count.textContent = `${current + 1} of ${hits.length} matching events`;
  });
  document.addEventListener("keydown", (event) => {
    const target = event.target as HTMLElement | null;
    if (event.key === "/" && target?.tagName !== "INPUT") {
      event.preventDefault();
      search?.focus();
    }
  });
}
