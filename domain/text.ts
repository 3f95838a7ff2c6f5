/**
 * Free text a user names things with (list, query, sector, model and snapshot names, clause labels): printable
 * characters only. Control characters (NUL, ESC, CR, LF, tab, DEL and the C1 range) and lone UTF-16 surrogates
 * are refused, so a name can neither forge log lines or CSV rows nor break a JSON or UTF-8 encoder downstream. So
 * are the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which make text show
 * in another order than it reads (`AAPL\u202Eetirovaf` shows as `AAPLfavorite`, reversed): the marks
 * U+200E and U+200F that right-to-left writing needs stay allowed.
 */
import { z } from 'zod';

/** What a refusal of such a text says (after the field's name). */
export const PLAIN_TEXT_MESSAGE =
  'must not contain control characters, text-direction overrides or unpaired surrogates';

/** Whether `text` holds printable characters only. */
export function isPlainText(text: string): boolean {
  // By code point: a surrogate pair is one character, a surrogate left on its own shows as itself.
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || (code >= 0xd800 && code <= 0xdfff)) return false;
    if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)) return false;
  }
  return true;
}

/** A zod string of printable characters only; the refusal names the field like any other. */
export function plainText(schema: z.ZodString = z.string({ error: 'must be a text' })): z.ZodString {
  return schema.refine(isPlainText, PLAIN_TEXT_MESSAGE);
}
