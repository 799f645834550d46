import { useState } from "react";

/**
 * A form's local view, started from the server's latest answer and started over whenever a new
 * one arrives (`answer` is that answer, or a token standing for it such as the key of a `?sent=`
 * navigation; undefined while there is none, which leaves the view alone). React's "adjust state
 * when a prop changes" pattern: no effect, no extra paint.
 */
export function useAnswerState<View>(answer: unknown, fromAnswer: () => View) {
  const [view, setView] = useState(fromAnswer);
  const [current, setCurrent] = useState(answer);
  if (answer !== undefined && answer !== current) {
    setCurrent(answer);
    setView(fromAnswer());
  }
  return [view, setView] as const;
}
