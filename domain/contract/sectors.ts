/**
 * The user-defined sector routes of the API: create, copy a GICS sector, rename, add and remove symbols,
 * delete, read.
 */
import { z } from './zod.ts';
import { SECTOR_NAME_MAX_LENGTH, SECTOR_SYMBOLS_LIMIT } from '../sectors/sectors.ts';
import { deletedAnswer, idParams, symbolList, symbolParams, symbolSchema } from './common.ts';
import { route } from './route.ts';
import { PLAIN_TEXT_MESSAGE, isPlainText } from '../text.ts';
import { SECTORS } from '../market/types.ts';

/** A user-defined sector as the API answers it. */
export const sectorAnswer = z.object({
  id: z.string(),
  name: z.string(),
  symbols: z
    .array(z.string())
    .describe(
      'largest market cap (shares × the price the quotes show) first, ties by symbol, as GET /api/sectors lists a GICS sector; symbols outside the universe last, by symbol',
    ),
  createdt: z.string(),
});

/** A user-defined sector as the API answers it. */
export type SectorAnswer = z.infer<typeof sectorAnswer>;

const name = z
  .string({ error: 'must be a text' })
  .refine(isPlainText, PLAIN_TEXT_MESSAGE)
  .trim()
  .min(1, 'must not be empty')
  .max(SECTOR_NAME_MAX_LENGTH, `must be at most ${SECTOR_NAME_MAX_LENGTH} characters`);

const symbols = symbolList(SECTOR_SYMBOLS_LIMIT);

/** The sectors routes. */
export const sectorsApi = {
  getSectors: route({
    method: 'GET',
    path: '/personalize/sectors',
    summary: "The user's sectors with their symbols, oldest first",
    tag: 'sectors',
    access: 'user',
    response: z.array(sectorAnswer),
  }),
  postSectors: route({
    method: 'POST',
    path: '/personalize/sectors',
    summary: `Create a sector: a name of 1-${SECTOR_NAME_MAX_LENGTH} characters unique among the user's sectors (any case; 409 when taken) and up to ${SECTOR_SYMBOLS_LIMIT} symbols of the universe`,
    tag: 'sectors',
    access: 'user',
    body: z.strictObject({
      name,
      symbols: z
        .array(symbolSchema)
        .max(SECTOR_SYMBOLS_LIMIT, `must name at most ${SECTOR_SYMBOLS_LIMIT} symbols`)
        .optional(),
    }),
    response: sectorAnswer,
  }),
  postSectorsCopy: route({
    method: 'POST',
    path: '/personalize/sectors/copy',
    summary:
      'Create a sector from one of the 11 GICS sectors of the universe, with its symbols (largest market cap first), named after it unless a name is given',
    tag: 'sectors',
    access: 'user',
    body: z.strictObject({
      gics: z.enum(SECTORS, { error: `must be one of ${SECTORS.join(', ')}` }),
      name: name.optional(),
    }),
    response: sectorAnswer,
  }),
  postSectorsByIdRename: route({
    method: 'POST',
    path: '/personalize/sectors/:id/rename',
    summary: "Rename one of the user's sectors (409 when another of them has the name, in any case)",
    tag: 'sectors',
    access: 'user',
    params: idParams,
    body: z.strictObject({ name }),
    response: sectorAnswer,
  }),
  postSectorsByIdSymbols: route({
    method: 'POST',
    path: '/personalize/sectors/:id/symbols',
    summary: `Add symbols to one of the user's sectors, merged without duplicates (at most ${SECTOR_SYMBOLS_LIMIT}); answers the sector`,
    tag: 'sectors',
    access: 'user',
    params: idParams,
    body: z.union([symbols, z.strictObject({ symbols })]),
    response: sectorAnswer,
  }),
  postSectorsByIdDelsymbolBySymbol: route({
    method: 'POST',
    path: '/personalize/sectors/:id/delsymbol/:symbol',
    summary: "Remove a symbol from one of the user's sectors; answers the sector after removal",
    tag: 'sectors',
    access: 'user',
    params: idParams.extend(symbolParams.shape),
    response: sectorAnswer,
  }),
  postDelsectorById: route({
    method: 'POST',
    path: '/personalize/delsector/:id',
    summary: "Delete one of the user's sectors",
    tag: 'sectors',
    access: 'user',
    params: idParams,
    response: deletedAnswer,
  }),
};
