/**
 * Company statistics routes: read the list (storing the defaults the first time a user has none) and save a
 * new list, recorded as its differences.
 */
import { companystatsApi } from '../../domain/contract/companystats.ts';
import {
  COMPANY_STATS_CONCERN,
  companyStatsDecider,
  type CompanyStatsState,
} from '../../domain/companystats/companystats.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { companyStatsProjection } from '../../projections/companystats/companystats.projection.ts';
import { readDocument } from '../../projections/projection.ts';
import type { CommandService } from '../commands.ts';
import { defineRoute, markPosition } from '../http/route.ts';
import { inRequestTerms } from '../http/fieldNames.ts';

/** What the company-stats routes need. */
export interface CompanyStatsDeps {
  readonly commands: CommandService;
  readonly readModels: ReadModelStore;
}

const concern = { concern: COMPANY_STATS_CONCERN, decider: companyStatsDecider };

/** The command id of storing a user's default statistics: one per user, so concurrent first reads store them once. */
export function defaultCompanyStatsCommandId(userId: string): string {
  return uuidV5(`${userId}/companystats-defaults`, STOCKPULSE_NAMESPACE);
}

/** The company-stats routes. */
export function companyStatsRoutes(deps: CompanyStatsDeps) {
  return [
    defineRoute({
      ...companystatsApi.getCompanystats,
      handle: async ({ userId, ctx, meta }) => {
        const doc = await readDocument<CompanyStatsState>(deps.readModels, companyStatsProjection, userId);
        if (doc && doc.value.stats.length > 0) {
          markPosition(ctx, doc.position);
          return doc.value.stats;
        }
        const outcome = await deps.commands.execute(
          concern,
          { type: 'StoreDefaultCompanyStats', data: {} },
          { ...meta(), commandId: defaultCompanyStatsCommandId(userId) },
        );
        // A replayed store answers the state of its time; the read model, caught up by now, is the truth.
        const stored = await readDocument<CompanyStatsState>(deps.readModels, companyStatsProjection, userId);
        if (stored && stored.value.stats.length > 0) {
          markPosition(ctx, stored.position);
          return stored.value.stats;
        }
        return outcome.state.stats;
      },
    }),
    defineRoute({
      ...companystatsApi.postCompanystats,
      handle: async ({ body, meta }) => {
        const outcome = await inRequestTerms({ stats: 'body' }, () =>
          deps.commands.execute(concern, { type: 'SaveCompanyStats', data: { stats: body } }, meta()),
        );
        return outcome.state.stats;
      },
    }),
  ];
}
