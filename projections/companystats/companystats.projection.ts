import {
  companyStatsDecider,
  type CompanyStatsEvent,
  type CompanyStatsState,
} from '../../domain/companystats/companystats.ts';
import { deciderProjection, type Projection } from '../projection.ts';

/** `GET /personalize/companystats`: each user's statistics, folded with the decider's own `evolve`. */
export const companyStatsProjection: Projection<CompanyStatsState> = deciderProjection(
  'companystats',
  1,
  companyStatsDecider,
  [
    'CompanyStatAdded',
    'CompanyStatRemoved',
    'CompanyStatModified',
    'CompanyStatsReordered',
  ] satisfies CompanyStatsEvent['type'][],
);
