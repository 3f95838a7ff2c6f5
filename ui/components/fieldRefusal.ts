/**
 * A server refusal in the words of the form it refuses. The server starts a refusal with the path of the field it
 * refuses (`body.symbol: unknown symbol ZZZZ`, `params.symbol: …`, `body.lots[0].quantity: …`); a form shows it by
 * the label of its control instead (`Symbol: unknown symbol ZZZZ`), and a field it has no control for (the `id`
 * of a lot removed) by the reason alone. A refusal naming no field (a lost connection, too many attempts) is kept
 * as it is.
 */

/** A refusal as a form shows it: the field refused (the top-level name, `lots` for `lots[0].quantity`) and words. */
export interface FieldRefusal<F extends string = string> {
  /** The field refused, as the request names it (`symbol`), or null when the refusal names none. */
  readonly field: string | null;
  /** The same field when the form has a label for it (one of its controls), else null. */
  readonly own: F | null;
  /** What the form says: `Symbol: unknown symbol ZZZZ`. */
  readonly text: string;
}

const REFUSAL = /^(body|params|query)((?:\.[A-Za-z_$][\w$]*|\[\d+\])*)\s*:\s*([\s\S]*)$/;

/** A server refusal taken apart: `body.lots[0].quantity: must be positive`. */
export interface RefusalParts {
  /** Which part of the request it refuses. */
  readonly part: 'body' | 'params' | 'query';
  /** The path of the value refused within it, dotted (`lots.0.quantity`), '' for the part as a whole. */
  readonly path: string;
  /** Why: `must be positive`. */
  readonly reason: string;
}

/** A server refusal's part, path and reason, or null for a refusal that names no field. */
export function refusalParts(message: string): RefusalParts | null {
  const match = REFUSAL.exec(message.trim());
  if (!match) return null;
  const [, part, path = '', reason = ''] = match;
  const dotted = path.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '');
  return { part: part as RefusalParts['part'], path: dotted, reason };
}

/**
 * A server's refusal (`message`) in the words of a form whose controls are labelled `labels`, by field name
 * (`{ symbol: 'Symbol', fee: 'Commission' }`).
 */
export function fieldRefusal<F extends string = string>(
  message: string,
  labels: Readonly<Record<F, string>> = {} as Record<F, string>,
): FieldRefusal<F> {
  const parts = refusalParts(message);
  if (parts === null) return { field: null, own: null, text: message };
  const field = /^[A-Za-z_$][\w$]*(?=\.|$)/.exec(parts.path)?.[0] ?? null;
  const own = field !== null && Object.hasOwn(labels, field) ? (field as F) : null;
  return { field, own, text: own === null ? parts.reason : `${labels[own]}: ${parts.reason}` };
}

/** The attributes that mark a control a refusal is about: invalid, and described by the refusal's element. */
export interface RefusalMarks {
  readonly 'aria-invalid'?: true;
  readonly 'aria-describedby'?: string;
}

/** The marks of a control: none unless `refused`, then invalid and described by the element `describedBy`. */
export function refusalMarks(refused: boolean, describedBy: string): RefusalMarks {
  return refused ? { 'aria-invalid': true, 'aria-describedby': describedBy } : {};
}
