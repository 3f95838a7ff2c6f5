/**
 * User-defined sectors: a user groups symbols under names of their own (the Sectors page), creating, renaming
 * and deleting sectors and adding and removing their symbols. Names are unique per user regardless of case.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';
import { isUuid } from '../ids.ts';
import { parseSymbol } from '../symbol.ts';

/** The concern name of sector streams (`sectors-<userId>`). */
export const SECTORS_CONCERN = 'sectors';

/** Most sectors one user may hold. */
export const SECTORS_LIMIT = 50;

/** Most symbols one sector may hold. */
export const SECTOR_SYMBOLS_LIMIT = 100;

/** Longest sector name, in characters once trimmed. */
export const SECTOR_NAME_MAX_LENGTH = 40;

/** One sector of a user. */
export interface UserSector {
  /** The sector id, derived from the id of the command that created it. */
  readonly id: string;
  /** Its name, 1–40 characters, unique per user regardless of case. */
  readonly name: string;
  /** Its symbols, in the order they were added, without duplicates. */
  readonly symbols: readonly string[];
  /** When it was created (ISO 8601). */
  readonly createdt: string;
}

/** Creates a sector, optionally with its first symbols. */
export type CreateSector = DomainEvent<
  'CreateSector',
  {
    /** The id of the new sector (derived from the command id, so a retry names the same sector). */
    readonly sectorId: string;
    /** The name; surrounding spaces are dropped. */
    readonly name: string;
    /** The first symbols (may be empty); case does not matter, repeats are dropped. */
    readonly symbols: readonly string[];
    /** When the command was issued (ISO 8601); becomes the sector's `createdt`. */
    readonly at: string;
  }
>;

/** Renames a sector. */
export type RenameSector = DomainEvent<'RenameSector', { readonly sectorId: string; readonly name: string }>;

/** Adds symbols to a sector; ones already in it, and repeats within the command, are dropped. */
export type AddSymbolsToSector = DomainEvent<
  'AddSymbolsToSector',
  { readonly sectorId: string; readonly symbols: readonly string[] }
>;

/** Removes one symbol from a sector; nothing happens when it is not in it. */
export type RemoveSymbolFromSector = DomainEvent<
  'RemoveSymbolFromSector',
  { readonly sectorId: string; readonly symbol: string }
>;

/** Deletes a sector. */
export type DeleteSector = DomainEvent<'DeleteSector', { readonly sectorId: string }>;

/** Every command of the sectors concern. */
export type SectorsCommand = CreateSector | RenameSector | AddSymbolsToSector | RemoveSymbolFromSector | DeleteSector;

/** A sector was created (its first symbols follow as {@link SymbolAddedToSector} events). */
export type SectorCreated = DomainEvent<
  'SectorCreated',
  { readonly sectorId: string; readonly name: string; readonly createdt: string }
>;

/** A sector was renamed. */
export type SectorRenamed = DomainEvent<'SectorRenamed', { readonly sectorId: string; readonly name: string }>;

/** A symbol was put at the end of a sector. */
export type SymbolAddedToSector = DomainEvent<
  'SymbolAddedToSector',
  { readonly sectorId: string; readonly symbol: string }
>;

/** A symbol was taken out of a sector. */
export type SymbolRemovedFromSector = DomainEvent<
  'SymbolRemovedFromSector',
  { readonly sectorId: string; readonly symbol: string }
>;

/** A sector was deleted with its symbols. */
export type SectorDeleted = DomainEvent<'SectorDeleted', { readonly sectorId: string }>;

/** Every event of the sectors concern. */
export type SectorsEvent =
  SectorCreated | SectorRenamed | SymbolAddedToSector | SymbolRemovedFromSector | SectorDeleted;

/** Every event type of the sectors concern. */
export const SECTORS_EVENT_TYPES = eventTypes<SectorsEvent>()(
  'SectorCreated',
  'SectorRenamed',
  'SymbolAddedToSector',
  'SymbolRemovedFromSector',
  'SectorDeleted',
);

/** A user's sectors, oldest first. */
export interface SectorsState {
  /** The sectors, in the order they were created. */
  readonly sectors: readonly UserSector[];
}

/** The key under which sector names count as equal: trimmed and lower-cased. */
export function sectorNameKey(name: string): string {
  return name.trim().toLowerCase();
}

/** The sector of an id, if the user has it. */
export function findSector(state: SectorsState, sectorId: string): UserSector | undefined {
  return state.sectors.find((sector) => sector.id === sectorId);
}

/** Checks a sector name (a text of 1–40 characters once trimmed) and answers it trimmed. */
export function parseSectorName(name: unknown, field = 'name'): string {
  const text = typeof name === 'string' ? name.trim() : '';
  if (text.length === 0 || text.length > SECTOR_NAME_MAX_LENGTH) {
    throw new DomainError(
      'invalid_name',
      `${field} must be a text of 1 to ${SECTOR_NAME_MAX_LENGTH} characters, got ${JSON.stringify(name)}`,
      field,
    );
  }
  return text;
}

function parseSectorId(sectorId: unknown): string {
  if (typeof sectorId !== 'string' || !isUuid(sectorId)) {
    throw new DomainError('invalid_id', `sectorId ${JSON.stringify(sectorId)} is not a sector id`, 'sectorId');
  }
  return sectorId.toLowerCase();
}

function existing(state: SectorsState, sectorId: unknown): UserSector {
  const id = parseSectorId(sectorId);
  const sector = findSector(state, id);
  if (!sector) throw new DomainError('not_found', `sectorId ${id}: no such sector`, 'sectorId');
  return sector;
}

function requireFreeName(state: SectorsState, name: string, except?: string): void {
  const key = sectorNameKey(name);
  const other = state.sectors.find((sector) => sector.id !== except && sectorNameKey(sector.name) === key);
  if (other) {
    throw new DomainError('taken', `name ${JSON.stringify(name)} is already the name of a sector`, 'name');
  }
}

/** The symbols of `texts` not in `present`, normalised, each once; a bad symbol is refused naming its place. */
function symbolsToAdd(present: readonly string[], texts: readonly string[]): string[] {
  const seen = new Set(present);
  const added: string[] = [];
  texts.forEach((text, i) => {
    const symbol = parseSymbol(text, `symbols[${i}]`);
    if (!seen.has(symbol)) {
      seen.add(symbol);
      added.push(symbol);
    }
  });
  if (present.length + added.length > SECTOR_SYMBOLS_LIMIT) {
    throw new DomainError(
      'limit',
      `symbols would make the sector ${present.length + added.length} symbols long; at most ${SECTOR_SYMBOLS_LIMIT}`,
      'symbols',
    );
  }
  return added;
}

function decide(command: SectorsCommand, state: SectorsState): SectorsEvent[] {
  switch (command.type) {
    case 'CreateSector': {
      const sectorId = parseSectorId(command.data.sectorId);
      const name = parseSectorName(command.data.name);
      if (findSector(state, sectorId)) {
        throw new DomainError('taken', `sectorId ${sectorId}: a sector with this id exists`, 'sectorId');
      }
      requireFreeName(state, name);
      if (state.sectors.length >= SECTORS_LIMIT) {
        throw new DomainError(
          'limit',
          `sectors: already ${state.sectors.length} sectors; at most ${SECTORS_LIMIT}`,
          'sectors',
        );
      }
      const symbols = symbolsToAdd([], command.data.symbols);
      return [
        { type: 'SectorCreated', data: { sectorId, name, createdt: command.data.at } },
        ...symbols.map((symbol): SectorsEvent => ({ type: 'SymbolAddedToSector', data: { sectorId, symbol } })),
      ];
    }
    case 'RenameSector': {
      const sector = existing(state, command.data.sectorId);
      const name = parseSectorName(command.data.name);
      if (name === sector.name) return [];
      requireFreeName(state, name, sector.id);
      return [{ type: 'SectorRenamed', data: { sectorId: sector.id, name } }];
    }
    case 'AddSymbolsToSector': {
      const sector = existing(state, command.data.sectorId);
      if (command.data.symbols.length === 0) {
        throw new DomainError('empty', 'symbols must name at least one symbol', 'symbols');
      }
      return symbolsToAdd(sector.symbols, command.data.symbols).map((symbol) => ({
        type: 'SymbolAddedToSector',
        data: { sectorId: sector.id, symbol },
      }));
    }
    case 'RemoveSymbolFromSector': {
      const sector = existing(state, command.data.sectorId);
      const symbol = parseSymbol(command.data.symbol, 'symbol');
      return sector.symbols.includes(symbol)
        ? [{ type: 'SymbolRemovedFromSector', data: { sectorId: sector.id, symbol } }]
        : [];
    }
    case 'DeleteSector': {
      const sector = existing(state, command.data.sectorId);
      return [{ type: 'SectorDeleted', data: { sectorId: sector.id } }];
    }
    default:
      throw unknownCommand(command, 'sectors');
  }
}

function withSector(state: SectorsState, sectorId: string, change: (sector: UserSector) => UserSector): SectorsState {
  const index = state.sectors.findIndex((sector) => sector.id === sectorId);
  if (index < 0) return state;
  const sectors = [...state.sectors];
  sectors[index] = change(sectors[index]!);
  return { sectors };
}

function evolve(state: SectorsState, event: SectorsEvent): SectorsState {
  switch (event.type) {
    case 'SectorCreated':
      return findSector(state, event.data.sectorId)
        ? state
        : {
            sectors: [
              ...state.sectors,
              { id: event.data.sectorId, name: event.data.name, symbols: [], createdt: event.data.createdt },
            ],
          };
    case 'SectorRenamed':
      return withSector(state, event.data.sectorId, (sector) => ({ ...sector, name: event.data.name }));
    case 'SymbolAddedToSector':
      return withSector(state, event.data.sectorId, (sector) =>
        sector.symbols.includes(event.data.symbol)
          ? sector
          : { ...sector, symbols: [...sector.symbols, event.data.symbol] },
      );
    case 'SymbolRemovedFromSector':
      return withSector(state, event.data.sectorId, (sector) =>
        sector.symbols.includes(event.data.symbol)
          ? { ...sector, symbols: sector.symbols.filter((symbol) => symbol !== event.data.symbol) }
          : sector,
      );
    case 'SectorDeleted':
      return findSector(state, event.data.sectorId)
        ? { sectors: state.sectors.filter((sector) => sector.id !== event.data.sectorId) }
        : state;
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/**
 * The sectors' rules: names of 1–40 characters unique regardless of case, at most {@link SECTORS_LIMIT}
 * sectors of at most {@link SECTOR_SYMBOLS_LIMIT} symbols each, symbols merged without duplicates.
 */
export const sectorsDecider: Decider<SectorsCommand, SectorsEvent, SectorsState> = {
  initialState: Object.freeze({ sectors: Object.freeze([]) }),
  decide,
  evolve,
};
