/**
 * The companystats routes of the API: request and answer schemas, shared by the gateway and the web app.
 */
import { z } from './zod.ts';
import { COMPANY_STAT_LIMIT_MAX, COMPANY_STAT_TYPES } from '../companystats/companystats.ts';
import { periodSchema } from './common.ts';
import { route } from './route.ts';

const LIMIT_RULE = `must be a whole number from 0 to ${COMPANY_STAT_LIMIT_MAX}`;

/** One statistic: its type, how many figures (a JSON number, not text) and its period in either case. */
const statSchema = z.strictObject(
  {
    type: z.enum(COMPANY_STAT_TYPES, { error: `must be one of ${COMPANY_STAT_TYPES.join(', ')}` }),
    limit: z.number({ error: LIMIT_RULE }).int(LIMIT_RULE).min(0, LIMIT_RULE).max(COMPANY_STAT_LIMIT_MAX, LIMIT_RULE),
    period: periodSchema,
  },
  { error: 'must be {type, limit, period}' },
);

const statList = z
  .array(statSchema, { error: 'must be a list of statistics' })
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

/** The companystats routes. */
export const companystatsApi = {
  getCompanystats: route({
    method: 'GET',
    path: '/personalize/companystats',
    summary:
      "The user's company statistics; the defaults (revenue, grossprofit, income, earningspershare, limit 0, period A) are stored and answered when there are none",
    tag: 'company stats',
    access: 'user',
    response: z.array(statSchema),
  }),
  postCompanystats: route({
    method: 'POST',
    path: '/personalize/companystats',
    summary: `Save the company statistics list (types ${COMPANY_STAT_TYPES.join(', ')} once each, limit 0-${COMPANY_STAT_LIMIT_MAX}, period A or Q in either case); answers the saved list`,
    tag: 'company stats',
    access: 'user',
    body: statList,
    response: z.array(statSchema),
  }),
};
