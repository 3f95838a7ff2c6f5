/**
 * Pure logic of the Sectors page: the changes a user makes to their sectors, how a server answer updates the
 * list, the checks made before sending (name length and uniqueness, symbol syntax), and the words of the
 * confirmations.
 */
import type { GicsSector, UniverseHit } from '../../../domain/contract/market.ts';
import type { SectorAnswer } from '../../../domain/contract/sectors.ts';
import { SECTOR_SYMBOLS_LIMIT } from '../../../domain/sectors/sectors.ts';
import type { Sector } from '../../../domain/market/types.ts';
import { isSymbol } from '../../../domain/symbol.ts';
import { plural } from '../../components/plural.ts';

/** Longest sector name (the server's rule). */
export const SECTOR_NAME_MAX = 40;

/** Most symbols one sector holds (the server's rule). */
export const SECTOR_SYMBOLS_MAX = SECTOR_SYMBOLS_LIMIT;

/**
 * A sector's fields as the page labels them, by the names the server's refusals give them: the page's own
 * refusals and the server's, once worded, begin alike (`Sector name: …`, `Symbols: …`).
 */
export const SECTOR_LABELS: Readonly<Record<'name' | 'symbols', string>> = { name: 'Sector name', symbols: 'Symbols' };

/** A user-defined sector as `GET /personalize/sectors` answers it. */
export type UserSector = SectorAnswer;

export type { GicsSector };

/** A company of the universe as `GET /api/universe` answers it. */
export type UniverseEntry = UniverseHit;

/** A change the user asks for; each is one command (one event) on the server. */
export type SectorChange =
  | { readonly kind: 'create'; readonly name: string; readonly symbols: readonly string[] }
  | { readonly kind: 'copy'; readonly gics: Sector }
  | { readonly kind: 'rename'; readonly id: string; readonly name: string }
  | { readonly kind: 'addSymbols'; readonly id: string; readonly symbols: readonly string[] }
  | { readonly kind: 'removeSymbol'; readonly id: string; readonly symbol: string }
  | { readonly kind: 'delete'; readonly id: string };

/** The "new sector" form as the user fills it, kept until the sector is created. */
export interface NewSectorDraft {
  readonly name: string;
  /** The symbols as typed (`NVDA, AMD`). */
  readonly symbols: string;
}

/** The empty "new sector" form. */
export const EMPTY_DRAFT: NewSectorDraft = Object.freeze({ name: '', symbols: '' });

/**
 * The "new sector" form once the server accepted a change: emptied when the change created the sector it names,
 * else as it was (a refused create, or a form filled again meanwhile, keeps what the user typed).
 */
export function draftAfterAccepted(draft: NewSectorDraft, change: SectorChange): NewSectorDraft {
  return change.kind === 'create' && draft.name.trim() === change.name ? EMPTY_DRAFT : draft;
}

/** What the server answers to a change: the sector after it, or the deletion. */
export type ChangeAnswer = UserSector | { readonly id: string; readonly deleted: true };

function isDeletion(answer: ChangeAnswer): answer is { readonly id: string; readonly deleted: true } {
  return 'deleted' in answer;
}

/** The list after the server answered a change: a deletion removes the sector, else the answer replaces or joins. */
export function applyAnswer(sectors: readonly UserSector[], answer: ChangeAnswer): readonly UserSector[] {
  if (isDeletion(answer)) return sectors.filter((s) => s.id !== answer.id);
  const sector: UserSector = answer;
  if (!sectors.some((s) => s.id === sector.id)) return [...sectors, sector];
  return sectors.map((s) => (s.id === sector.id ? sector : s));
}

/** Why a name cannot be given to a sector (empty, too long, or another of the user's sectors has it), or null. */
export function nameError(name: string, sectors: readonly UserSector[], exceptId?: string): string | null {
  const text = name.trim();
  if (text.length === 0) return `${SECTOR_LABELS.name}: enter a name`;
  if (text.length > SECTOR_NAME_MAX) return `${SECTOR_LABELS.name}: at most ${SECTOR_NAME_MAX} characters`;
  const key = text.toLowerCase();
  if (sectors.some((s) => s.id !== exceptId && s.name.trim().toLowerCase() === key)) {
    return `${SECTOR_LABELS.name}: you already have a sector named ${JSON.stringify(sectors.find((s) => s.name.trim().toLowerCase() === key)?.name ?? text)}`;
  }
  return null;
}

/** Symbols typed as a list (`aapl, MSFT nvda`): upper-cased, without repeats; the texts that are not symbols apart. */
export function parseSymbols(text: string): {
  readonly symbols: readonly string[];
  readonly invalid: readonly string[];
} {
  const symbols: string[] = [];
  const invalid: string[] = [];
  for (const token of text.split(/[\s,;]+/).filter(Boolean)) {
    const symbol = token.toUpperCase();
    if (!isSymbol(symbol)) invalid.push(token);
    else if (!symbols.includes(symbol)) symbols.push(symbol);
  }
  return { symbols, invalid };
}

/** Why a list of symbols cannot be added to a sector, or null. */
export function symbolsError(
  parsed: { readonly symbols: readonly string[]; readonly invalid: readonly string[] },
  present: readonly string[] = [],
): string | null {
  if (parsed.invalid.length > 0)
    return `${SECTOR_LABELS.symbols}: ${parsed.invalid.map((t) => JSON.stringify(t)).join(', ')} is not a symbol`;
  const fresh = parsed.symbols.filter((s) => !present.includes(s));
  if (present.length + fresh.length > SECTOR_SYMBOLS_MAX)
    return `${SECTOR_LABELS.symbols}: a sector holds at most ${SECTOR_SYMBOLS_MAX}`;
  return null;
}

/** Whether one of the user's sectors already bears a GICS sector's name (a copy would be refused as taken). */
export function isCopied(sectors: readonly UserSector[], gics: string): boolean {
  const key = gics.toLowerCase();
  return sectors.some((s) => s.name.trim().toLowerCase() === key);
}

/** The universe search results worth offering for a sector: those not in it yet. */
export function suggestions(
  results: readonly UniverseEntry[],
  sector: UserSector | undefined,
): readonly UniverseEntry[] {
  const present = new Set(sector?.symbols ?? []);
  return results.filter((r) => !present.has(r.symbol));
}

/** The confirmation shown once the server accepted a change. */
export function confirmation(change: SectorChange, before: readonly UserSector[], answer: ChangeAnswer): string {
  const name = (id: string) => before.find((s) => s.id === id)?.name ?? 'the sector';
  switch (change.kind) {
    case 'create':
      return `Created ${change.name.trim()}`;
    case 'copy':
      return `Copied ${change.gics}${'symbols' in answer ? ` with ${plural(answer.symbols.length, 'symbol')}` : ''}`;
    case 'rename':
      return `Renamed ${name(change.id)} to ${change.name.trim()}`;
    case 'addSymbols':
      return `Added ${change.symbols.join(', ')} to ${name(change.id)}`;
    case 'removeSymbol':
      return `Removed ${change.symbol} from ${name(change.id)}`;
    case 'delete':
      return `Deleted ${name(change.id)}`;
  }
}

/** The sector a change is about (null for a new one). */
export function changeTarget(change: SectorChange): string | null {
  return change.kind === 'create' || change.kind === 'copy' ? null : change.id;
}
