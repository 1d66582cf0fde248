/** The session's standing goal, shown on top, set and cleared from the page. */

import { Visible } from "@tapedeck/html-export/render";
import { useState } from "react";
import { api } from "./api";

/** Goal line with Set/Edit/Clear; `onChanged` reloads the session. */
export function GoalControl({
  sessionId,
  goal,
  onChanged,
}: {
  sessionId: string;
  goal: string | null;
  onChanged(): void;
}) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(goal ?? "");
  const [error, setError] = useState<string | null>(null);
  const save = async (value: string | null) => {
    setError(null);
    try {
      await api.setGoal(sessionId, value);
      setEditing(false);
      onChanged();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  if (editing) {
    return (
      <form
        className="goal goal-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (text.trim() !== "") void save(text.trim());
        }}
      >
        <span className="goal-label">Goal</span>{" "}
        <input
          aria-label="Goal"
          value={text}
          maxLength={2000}
          onChange={(event) => setText(event.target.value)}
        />{" "}
        <button type="submit" disabled={text.trim() === ""}>
          Save goal
        </button>{" "}
        <button type="button" className="link" onClick={() => setEditing(false)}>
          cancel
        </button>
        {error !== null ? <span className="error-text small"> {error}</span> : null}
      </form>
    );
  }
  return (
    <div className="goal" data-testid="session-goal">
      {goal !== null ? (
        <>
          <span className="goal-label">Goal</span> <Visible text={goal} />{" "}
        </>
      ) : null}
      <button
        type="button"
        className="link small"
        onClick={() => {
          setText(goal ?? "");
          setEditing(true);
        }}
      >
        {goal === null ? "Set a goal" : "Edit"}
      </button>
      {goal !== null ? (
        <>
          {" · "}
          <button type="button" className="link small" onClick={() => void save(null)}>
            Clear goal
          </button>
        </>
      ) : null}
      {error !== null ? <span className="error-text small"> {error}</span> : null}
    </div>
  );
}
