/**
 * Component 3: the user's alerts (armed or triggered) and the newest notifications, read again live when an
 * alert fires or changes.
 */
import { useMachine } from '@xstate/react';
import { useId } from 'react';
import { notificationTypeName } from '../../../domain/notifications/notifications.ts';
import { messageDirection } from '../bell/bellText.ts';
import { AlertNote } from '../../components/AlertNote.tsx';
import { Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { usePreferences } from '../../services/preferences.ts';
import { formatRecent } from '../../services/time.ts';
import { AlertWayMark } from '../../components/AlertWayMark.tsx';
import { activityMachine, type Activity } from './panels.ts';

/** The alerts and notifications panel. */
export function ActivityPanel() {
  const [state, send] = useMachine(activityMachine, { input: null });
  const titleId = useId();
  const { timeZone } = usePreferences();
  const data = state.context.data as Activity | null;
  let content;
  if (data === null && (state.matches('loading') || state.matches('refreshing'))) {
    content = <Skeleton lines={5} />;
  } else if (state.matches('failed')) {
    content = (
      <Failed
        message={`Your alerts could not be loaded: ${state.context.error ?? ''}`}
        onRetry={() => send({ type: 'user.retry' })}
      />
    );
  } else if (data) {
    content = (
      <div className="dash-columns">
        <div>
          <h3>Your alerts</h3>
          {data.alerts.length === 0 ? (
            <Empty>No alerts yet: use “Add alert” on a card or click a price chart.</Empty>
          ) : (
            <ul className="dash-list">
              {data.alerts.map((alert) => (
                <li key={alert.id}>
                  <SymbolChip symbol={alert.symbol} addable={false} />
                  <AlertWayMark alert={alert} />
                  <span>{alert.conditiontext}</span>
                  <span className={`dash-status ${alert.status}`}>{alert.status}</span>
                  <AlertNote note={alert.note} className="hint dash-note" />
                </li>
              ))}
            </ul>
          )}
        </div>
        <div>
          <h3>Recent notifications</h3>
          {data.notifications.length === 0 ? (
            <Empty>No alert has fired yet.</Empty>
          ) : (
            <ul className="dash-list">
              {data.notifications.map((n) => (
                <li key={n.id} className={n.read ? '' : 'unread'}>
                  <SymbolChip symbol={n.symbol} addable={false} />
                  <span className="bell-type">{notificationTypeName(n.notificationtype)}</span>
                  <span className={messageDirection(n.notifcationmessage) ?? ''}>{n.notifcationmessage}</span>
                  <AlertNote note={n.note} className="hint dash-note" />
                  <span className="hint">{formatRecent(n.createdt, timeZone)}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    );
  }
  return (
    <section className="dash-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Alerts and notifications</h2>
      {content}
    </section>
  );
}
