/**
 * Where a sign-in leads: back to the page a signed-out visitor asked for, carried in the sign-in page's address
 * (`/Login?next=%2FWatchlist%3Fsort%3Dname`), and to the dashboard when there is none. Only an address of one
 * of the app's own pages behind the sign-in is ever returned to: the `next` of a link made elsewhere could name
 * another site (`https://…`, `//host`, `/\host`) or a page the app does not have, and is then ignored.
 */
import { canonicalAddress, screenOf } from './routes.ts';

/** The sign-in page's path. */
export const LOGIN_PATH = '/Login';

/** Where a sign-in leads when no page was asked for, or the one asked for is not returned to. */
export const HOME_PATH = '/Dashboard';

/** The sign-in page's parameter naming the page to return to. */
export const NEXT_PARAM = 'next';

/** The longest address returned to: a longer one is no link of the app's. */
const MAX_LENGTH = 2000;

/** Any character an address of the app never holds as typed: a backslash, a space, a control character. */
const FORBIDDEN = /[\\\s\p{Cc}]/u;

/** An origin no page has, to read a path against: whatever does not stay on it leaves the app. */
const BASE = 'https://app.invalid';

/**
 * The address a sign-in returns to, given the sign-in page's `next` (null or undefined when it has none): `next`
 * as the path and query of one of the app's screens, in the letter case and form the shell opens (`/watchlist`,
 * `/Analyze`, `/PriceChart/AAPL` included), its fragment dropped; else {@link HOME_PATH}. Refused: anything but
 * a path of this origin (an absolute address, `//host`, a backslash, a space or control character, which a
 * browser drops or reads as a slash), the sign-in page itself, the pages of e-mailed links, and a path that
 * names no screen.
 */
export function returnAddress(next: string | null | undefined): string {
  if (typeof next !== 'string' || next.length > MAX_LENGTH || FORBIDDEN.test(next)) return HOME_PATH;
  if (!next.startsWith('/') || next.startsWith('//')) return HOME_PATH;
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return HOME_PATH;
  }
  if (url.origin !== BASE) return HOME_PATH;
  const known = screenOf(url.pathname) !== undefined || canonicalAddress(url.pathname, '') !== undefined;
  return known ? url.pathname + url.search : HOME_PATH;
}

/**
 * The sign-in page's address for a visitor sent there from `asked` (the path and query they opened): it names
 * `asked` as the page to return to, unless that is the dashboard or not one returned to ({@link returnAddress}).
 */
export function loginAddress(asked: string): string {
  const next = returnAddress(asked);
  return next === HOME_PATH ? LOGIN_PATH : `${LOGIN_PATH}?${new URLSearchParams({ [NEXT_PARAM]: next }).toString()}`;
}
