import { DomainError, isDomainError } from '../../domain/decider.ts';

/**
 * Runs a command and, when the rules refuse it, names the field as the request has it rather than as the
 * command does: `renames` maps a command field (`symbols`, `lots[0]`) to its place in the request (`body`);
 * the first prefix that fits wins.
 */
export async function inRequestTerms<T>(renames: Readonly<Record<string, string>>, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!isDomainError(error) || error.field === undefined) throw error;
    const field = error.field;
    const from = Object.keys(renames).find(
      (name) => field === name || field.startsWith(`${name}.`) || field.startsWith(`${name}[`),
    );
    if (from === undefined) throw error;
    const renamed = `${renames[from]}${field.slice(from.length)}`;
    const message = error.message.startsWith(field)
      ? `${renamed}${error.message.slice(field.length)}`
      : `${renamed}: ${error.message}`;
    throw new DomainError(error.code, message, renamed);
  }
}
