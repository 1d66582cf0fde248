/** The button above a timeline that does not start at the session's start. */

/** "Load earlier events"; nothing when the timeline holds the session from its start. */
export function LoadEarlier({ earlier, onClick }: { earlier: number; onClick(): void }) {
  if (earlier === 0) return null;
  return (
    <button type="button" className="load-earlier" data-testid="load-earlier" onClick={onClick}>
      Load earlier events ({earlier.toLocaleString()} before #{(earlier + 1).toLocaleString()})
    </button>
  );
}
