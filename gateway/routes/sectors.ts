/**
 * User-defined sector routes (the Sectors page): list, create (or copy one of the 11 GICS sectors of the
 * universe), rename, add and remove symbols, delete. Each change is one command on `sectors-<userId>`.
 */
import { z } from 'zod';
import { PLAIN_TEXT_MESSAGE, isPlainText } from '../../domain/text.ts';
import { DomainError, isDomainError } from '../../domain/decider.ts';
import { STOCKPULSE_NAMESPACE, isUuid, uuidV5 } from '../../domain/ids.ts';
import { SECTORS, type Sector } from '../../domain/market/types.ts';
import {
  SECTORS_CONCERN,
  SECTOR_NAME_MAX_LENGTH,
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
import { requireKnown, symbolList, symbolParams, symbolSchema, type SymbolDirectory } from '../http/schemas.ts';

/** The GICS sectors of the universe, each with its symbols (largest market cap first). */
export interface GicsSectors {
  /** The 11 sectors and their symbols. */
  sectors(): { sector: Sector; symbols: string[] }[];
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

const sectorAnswer = z.object({
  id: z.string(),
  name: z.string(),
  symbols: z.array(z.string()),
  createdt: z.string(),
});

const name = z
  .string({ error: 'must be a text' })
  .refine(isPlainText, PLAIN_TEXT_MESSAGE)
  .trim()
  .min(1, 'must not be empty')
  .max(SECTOR_NAME_MAX_LENGTH, `must be at most ${SECTOR_NAME_MAX_LENGTH} characters`);

const symbols = symbolList(SECTOR_SYMBOLS_LIMIT);

const idParams = z.object({
  id: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
});

/** A sector as the API answers it. */
export function sectorView(sector: UserSector): z.infer<typeof sectorAnswer> {
  return { id: sector.id, name: sector.name, symbols: [...sector.symbols], createdt: sector.createdt };
}

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

/** The sector of an outcome's state, which the command just created or changed. */
function sectorOf(state: SectorsState, sectorId: string): z.infer<typeof sectorAnswer> {
  const sector = findSector(state, sectorId);
  if (!sector) throw notFound(`params.id: no sector ${sectorId}`);
  return sectorView(sector);
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
    return sectorOf(outcome.state, sectorId);
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/personalize/sectors',
      summary: "The user's sectors with their symbols, oldest first",
      tag: 'sectors',
      access: 'user',
      response: z.array(sectorAnswer),
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<SectorsState>(deps.readModels, sectorsProjection, userId);
        markPosition(ctx, doc?.position);
        return (doc?.value.sectors ?? []).map(sectorView);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/sectors',
      summary: `Create a sector: a name of 1-${SECTOR_NAME_MAX_LENGTH} characters unique among the user's sectors (any case; 409 when taken) and up to ${SECTOR_SYMBOLS_LIMIT} symbols of the universe`,
      tag: 'sectors',
      access: 'user',
      body: z.object({
        name,
        symbols: z
          .array(symbolSchema)
          .max(SECTOR_SYMBOLS_LIMIT, `must name at most ${SECTOR_SYMBOLS_LIMIT} symbols`)
          .optional(),
      }),
      response: sectorAnswer,
      handle: async ({ body, meta }) => {
        const list = body.symbols ?? [];
        requireKnown(deps.symbols, list, 'body.symbols');
        return create(meta(), body.name, list);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/sectors/copy',
      summary:
        'Create a sector from one of the 11 GICS sectors of the universe, with its symbols (largest market cap first), named after it unless a name is given',
      tag: 'sectors',
      access: 'user',
      body: z.object({
        gics: z.enum(SECTORS, { error: `must be one of ${SECTORS.join(', ')}` }),
        name: name.optional(),
      }),
      response: sectorAnswer,
      handle: async ({ body, meta }) => {
        const gics = deps.gics.sectors().find((s) => s.sector === body.gics);
        const list = (gics?.symbols ?? []).slice(0, SECTOR_SYMBOLS_LIMIT);
        return create(meta(), body.name ?? body.gics, list);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/sectors/:id/rename',
      summary: "Rename one of the user's sectors (409 when another of them has the name, in any case)",
      tag: 'sectors',
      access: 'user',
      params: idParams,
      body: z.object({ name }),
      response: sectorAnswer,
      handle: async ({ params, body, meta }) => {
        const sectorId = sectorIdOf(params.id);
        const outcome = await execute(
          deps.commands,
          { type: 'RenameSector', data: { sectorId, name: body.name } },
          meta(),
        );
        return sectorOf(outcome.state, sectorId);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/sectors/:id/symbols',
      summary: `Add symbols to one of the user's sectors, merged without duplicates (at most ${SECTOR_SYMBOLS_LIMIT}); answers the sector`,
      tag: 'sectors',
      access: 'user',
      params: idParams,
      body: z.union([symbols, z.object({ symbols })]),
      response: sectorAnswer,
      handle: async ({ params, body, meta }) => {
        const sectorId = sectorIdOf(params.id);
        const list = Array.isArray(body) ? body : body.symbols;
        requireKnown(deps.symbols, list, Array.isArray(body) ? 'body' : 'body.symbols');
        const outcome = await execute(
          deps.commands,
          { type: 'AddSymbolsToSector', data: { sectorId, symbols: list } },
          meta(),
        );
        return sectorOf(outcome.state, sectorId);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/sectors/:id/delsymbol/:symbol',
      summary: "Remove a symbol from one of the user's sectors; answers the sector after removal",
      tag: 'sectors',
      access: 'user',
      params: idParams.extend(symbolParams.shape),
      response: sectorAnswer,
      handle: async ({ params, meta }) => {
        const sectorId = sectorIdOf(params.id);
        const outcome = await execute(
          deps.commands,
          { type: 'RemoveSymbolFromSector', data: { sectorId, symbol: params.symbol } },
          meta(),
        );
        refuseAbsentSymbol(outcome, params.symbol, 'sector');
        return sectorOf(outcome.state, sectorId);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/delsector/:id',
      summary: "Delete one of the user's sectors",
      tag: 'sectors',
      access: 'user',
      params: idParams,
      response: z.object({ id: z.string(), deleted: z.literal(true) }),
      handle: async ({ params, meta }) => {
        const sectorId = sectorIdOf(params.id);
        await execute(deps.commands, { type: 'DeleteSector', data: { sectorId } }, meta());
        return { id: sectorId, deleted: true as const };
      },
    }),
  ];
}
