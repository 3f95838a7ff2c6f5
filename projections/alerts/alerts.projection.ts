import { alertsDecider, type AlertsEvent, type AlertsState } from '../../domain/alerts/alerts.ts';
import { deciderProjection, type Projection } from '../projection.ts';

/**
 * `GET /personalize/stockalerts` and `GET /personalize/stockalerts/{symbol}`: each user's alerts with their
 * status, folded with the decider's own `evolve`.
 */
export const alertsProjection: Projection<AlertsState> = deciderProjection('alerts', 1, alertsDecider, [
  'AlertCreated',
  'AlertUpdated',
  'AlertDeleted',
  'AlertTriggered',
] satisfies AlertsEvent['type'][]);
