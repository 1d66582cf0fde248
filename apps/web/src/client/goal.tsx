/** The session's standing goal, shown on top, set and cleared from the page. */

import { useMutation } from "@tanstack/react-query";
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
  const goalWrite = useMutation({
    mutationFn: (value: string | null) => api.setGoal(sessionId, value),
    onSuccess: () => {
      setEditing(false);
      onChanged();
    },
  });
  const save = (value: string | null) => goalWrite.mutate(value);
  const error = goalWrite.error?.message ?? null;
  if (editing) {
    return (
      <form
        className="goal goal-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (text.trim() !== "") save(text.trim());
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
          <button type="button" className="link small" onClick={() => save(null)}>
            Clear goal
          </button>
        </>
      ) : null}
      {error !== null ? <span className="error-text small"> {error}</span> : null}
    </div>
  );
}
