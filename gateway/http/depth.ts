/**
 * Nesting limit of JSON bodies: a body nested deeper than {@link MAX_JSON_DEPTH} is refused with a 400 before it
 * is parsed, so no validator, formatter or query parser ever walks a value deep enough to exhaust the stack.
 */
import { ApiError } from '../errors.ts';

/** Deepest nesting of arrays and objects accepted in a JSON body. */
export const MAX_JSON_DEPTH = 32;

/** The deepest nesting of arrays and objects in JSON text, counted without recursion (strings skipped). */
export function jsonDepth(text: string, stopAt = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > stopAt) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return deepest;
}

/** Refuses JSON text nested deeper than `max` with a 400 naming the body. */
export function refuseDeepJson(text: string, max = MAX_JSON_DEPTH): void {
  if (jsonDepth(text, max) > max) {
    throw new ApiError(400, 'bad_request', `body: nested deeper than ${max} levels`);
  }
}
