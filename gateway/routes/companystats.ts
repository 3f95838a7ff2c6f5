/**
 * Company statistics routes: read the list (storing the defaults the first time a user has none) and save a
 * new list, recorded as its differences.
 */
import { z } from 'zod';
import {
  COMPANY_STATS_CONCERN,
  COMPANY_STAT_LIMIT_MAX,
  COMPANY_STAT_PERIODS,
  COMPANY_STAT_TYPES,
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

const statSchema = z.object({
  type: z.enum(COMPANY_STAT_TYPES),
  limit: z.int().min(0).max(COMPANY_STAT_LIMIT_MAX),
  period: z.enum(COMPANY_STAT_PERIODS),
});

const statList = z
  .array(statSchema)
  .min(1, 'must hold at least one statistic')
  .max(COMPANY_STAT_TYPES.length, `must hold at most ${COMPANY_STAT_TYPES.length} statistics, one per type`)
  .superRefine((stats, ctx) => {
    const seen = new Set<string>();
    stats.forEach((stat, i) => {
      if (seen.has(stat.type))
        ctx.addIssue({ code: 'custom', message: `${stat.type} appears twice`, path: [i, 'type'] });
      seen.add(stat.type);
    });
  });

/** The command id of storing a user's default statistics: one per user, so concurrent first reads store them once. */
export function defaultCompanyStatsCommandId(userId: string): string {
  return uuidV5(`${userId}/companystats-defaults`, STOCKPULSE_NAMESPACE);
}

/** The company-stats routes. */
export function companyStatsRoutes(deps: CompanyStatsDeps) {
  return [
    defineRoute({
      method: 'GET',
      path: '/personalize/companystats',
      summary:
        "The user's company statistics; the defaults (revenue, grossprofit, income, earningspershare, limit 0, period A) are stored and answered when there are none",
      tag: 'company stats',
      access: 'user',
      response: z.array(statSchema),
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
      method: 'POST',
      path: '/personalize/companystats',
      summary: `Save the company statistics list (types ${COMPANY_STAT_TYPES.join(', ')} once each, limit 0-${COMPANY_STAT_LIMIT_MAX}, period A or Q); answers the saved list`,
      tag: 'company stats',
      access: 'user',
      body: statList,
      response: z.array(statSchema),
      handle: async ({ body, meta }) => {
        const outcome = await inRequestTerms({ stats: 'body' }, () =>
          deps.commands.execute(concern, { type: 'SaveCompanyStats', data: { stats: body } }, meta()),
        );
        return outcome.state.stats;
      },
    }),
  ];
}
