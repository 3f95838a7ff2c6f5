/**
 * User-defined sector routes (the Sectors page): list, create (or copy one of the 11 GICS sectors of the
 * universe), rename, add and remove symbols, delete. Each change is one command on `sectors-<userId>`. A sector's
 * symbols are answered in the order the GICS sectors list theirs: largest market cap first.
 */
import { sectorsApi, type SectorAnswer } from '../../domain/contract/sectors.ts';
import { DomainError, isDomainError } from '../../domain/decider.ts';
import { STOCKPULSE_NAMESPACE, isUuid, uuidV5 } from '../../domain/ids.ts';
import { type Sector } from '../../domain/market/types.ts';
import {
  SECTORS_CONCERN,
  SECTOR_SYMBOLS_LIMIT,
  findSector,
  sectorsDecider,
  type SectorsCommand,
  type SectorsState,
  type UserSector,
} from '../../domain/sectors/sectors.ts';
import type { CommandMeta } from '../../domain/decider.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { readDocument } from '../../projections/projection.ts';
import { sectorsProjection } from '../../projections/sectors/sectors.projection.ts';
import type { CommandService } from '../commands.ts';
import { notFound } from '../errors.ts';
import { refuseAbsentSymbol } from '../http/paramErrors.ts';
import { defineRoute, markPosition } from '../http/route.ts';
import { requireKnown, type SymbolDirectory } from '../http/schemas.ts';

/** The GICS sectors of the universe, each with its symbols (largest market cap first), and that order. */
export interface GicsSectors {
  /** The 11 sectors and their symbols. */
  sectors(): { sector: Sector; symbols: string[] }[];
  /**
   * Symbols largest market cap first (shares × the price the quotes show), ties by symbol; those without a
   * market cap last, by symbol.
   */
  byMarketCap(symbols: readonly string[]): string[];
}

/** What the sector routes need. */
export interface SectorsDeps {
  /** Runs the commands on the user's stream. */
  readonly commands: CommandService;
  /** The read models the GET route answers from. */
  readonly readModels: ReadModelStore;
  /** The symbols that exist. */
  readonly symbols: SymbolDirectory;
  /** The universe's GICS sectors, for copies. */
  readonly gics: GicsSectors;
}

const concern = { concern: SECTORS_CONCERN, decider: sectorsDecider };

/** Where each command field sits in the request, for refusals that name it as the client sent it. */
const REQUEST_FIELDS: Readonly<Record<string, string>> = {
  sectorId: 'params.id',
  name: 'body.name',
  symbols: 'body.symbols',
  symbol: 'params.symbol',
};

/** Runs a command, renaming the field of a domain refusal to where it sits in the request. */
async function execute(
  commands: CommandService,
  command: SectorsCommand,
  meta: CommandMeta,
): Promise<{ state: SectorsState; events: readonly unknown[] }> {
  try {
    return await commands.execute(concern, command, meta);
  } catch (error) {
    if (!isDomainError(error) || error.field === undefined) throw error;
    const root = error.field.split(/[.[]/)[0]!;
    const field = REQUEST_FIELDS[root];
    if (field === undefined || !error.message.startsWith(root)) throw error;
    throw new DomainError(
      error.code,
      `${field}${error.message.slice(root.length)}`,
      `${field}${error.field.slice(root.length)}`,
    );
  }
}

/** The sector id of a path, lower-cased; an id that is not a UUID names no sector (404). */
function sectorIdOf(id: string): string {
  const sectorId = id.toLowerCase();
  if (!isUuid(sectorId)) throw notFound(`params.id: no sector ${JSON.stringify(id)}`);
  return sectorId;
}

/** A sector as the API answers it: its symbols in the order `gics` lists a sector's (largest market cap first). */
export function sectorView(sector: UserSector, gics: Pick<GicsSectors, 'byMarketCap'>): SectorAnswer {
  return { id: sector.id, name: sector.name, symbols: gics.byMarketCap(sector.symbols), createdt: sector.createdt };
}

/** The sector of an outcome's state, which the command just created or changed. */
function sectorOf(state: SectorsState, sectorId: string, gics: GicsSectors): SectorAnswer {
  const sector = findSector(state, sectorId);
  if (!sector) throw notFound(`params.id: no sector ${sectorId}`);
  return sectorView(sector, gics);
}

/** The user-defined sector routes. */
export function sectorsRoutes(deps: SectorsDeps) {
  const create = async (m: CommandMeta, sectorName: string, list: readonly string[]) => {
    const sectorId = uuidV5(`${m.commandId}/sector`, STOCKPULSE_NAMESPACE);
    const outcome = await execute(
      deps.commands,
      { type: 'CreateSector', data: { sectorId, name: sectorName, symbols: list, at: m.at } },
      m,
    );
    return sectorOf(outcome.state, sectorId, deps.gics);
  };
  return [
    defineRoute({
      ...sectorsApi.getSectors,
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<SectorsState>(deps.readModels, sectorsProjection, userId);
        markPosition(ctx, doc?.position);
        return (doc?.value.sectors ?? []).map((sector) => sectorView(sector, deps.gics));
      },
    }),
    defineRoute({
      ...sectorsApi.postSectors,
      handle: async ({ body, meta }) => {
        const list = body.symbols ?? [];
        requireKnown(deps.symbols, list, 'body.symbols');
        return create(meta(), body.name, list);
      },
    }),
    defineRoute({
      ...sectorsApi.postSectorsCopy,
      handle: async ({ body, meta }) => {
        const gics = deps.gics.sectors().find((s) => s.sector === body.gics);
        const list = (gics?.symbols ?? []).slice(0, SECTOR_SYMBOLS_LIMIT);
        return create(meta(), body.name ?? body.gics, list);
      },
    }),
    defineRoute({
      ...sectorsApi.postSectorsByIdRename,
      handle: async ({ params, body, meta }) => {
        const sectorId = sectorIdOf(params.id);
        const outcome = await execute(
          deps.commands,
          { type: 'RenameSector', data: { sectorId, name: body.name } },
          meta(),
        );
        return sectorOf(outcome.state, sectorId, deps.gics);
      },
    }),
    defineRoute({
      ...sectorsApi.postSectorsByIdSymbols,
      handle: async ({ params, body, meta }) => {
        const sectorId = sectorIdOf(params.id);
        const list = Array.isArray(body) ? body : body.symbols;
        requireKnown(deps.symbols, list, Array.isArray(body) ? 'body' : 'body.symbols');
        const outcome = await execute(
          deps.commands,
          { type: 'AddSymbolsToSector', data: { sectorId, symbols: list } },
          meta(),
        );
        return sectorOf(outcome.state, sectorId, deps.gics);
      },
    }),
    defineRoute({
      ...sectorsApi.postSectorsByIdDelsymbolBySymbol,
      handle: async ({ params, meta }) => {
        const sectorId = sectorIdOf(params.id);
        const outcome = await execute(
          deps.commands,
          { type: 'RemoveSymbolFromSector', data: { sectorId, symbol: params.symbol } },
          meta(),
        );
        refuseAbsentSymbol(outcome, params.symbol, 'sector');
        return sectorOf(outcome.state, sectorId, deps.gics);
      },
    }),
    defineRoute({
      ...sectorsApi.postDelsectorById,
      handle: async ({ params, meta }) => {
        const sectorId = sectorIdOf(params.id);
        await execute(deps.commands, { type: 'DeleteSector', data: { sectorId } }, meta());
        return { id: sectorId, deleted: true as const };
      },
    }),
  ];
}
