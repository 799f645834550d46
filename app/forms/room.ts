import { characters, LIMITS } from "./limits";

/**
 * What a long text's box says of its room (Field's `count`): "4,880 characters left", or "321
 * characters too many" with `over`, counted as the check counts (`characters`), so the two agree.
 * With the rules (app/schema.ts): the box counts once the visitor types into it, which has loaded them.
 */
export function roomLeft(name: "description" | "message", text: string) {
  const left = LIMITS[name] - characters(text);
  const n = Math.abs(left);
  return { said: `${n.toLocaleString("en")} ${n === 1 ? "character" : "characters"} ${left < 0 ? "too many" : "left"}`, over: left < 0 };
}
