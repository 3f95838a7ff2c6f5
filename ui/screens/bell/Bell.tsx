/**
 * The bell in the top bar: badge with the unread count and the panel with the notifications grid (compact,
 * 15 rows a page, no column menu; green up and red down indicators, the type and the whole message) and a
 * link to the alert manager; under a notification, a warning for each of its deliveries (webhook, email, Web
 * Push) that failed or waits for a retry. Outside click or Escape closes it; opening it marks them read.
 */
import { useMachine } from '@xstate/react';
import { lazy, Suspense } from 'react';
import { Link } from '../../components/Link.tsx';
import { Failed, Skeleton } from '../../components/LoadState.tsx';
import { useDismiss } from '../../components/useDismiss.ts';
import { StrokeIcon } from '../../components/StrokeIcon.tsx';
import { bellMachine } from './bell.machine.ts';
import './bell.css';

// The panel's grid is loaded when the panel first shows notifications, so no page carries grid code for the bell.
const BellGrid = lazy(() => import('./BellGrid.tsx'));

/** The bell and its panel. */
export function Bell() {
  const [state, send] = useMachine(bellMachine);
  const open = state.matches({ panel: 'open' });
  const wrapper = useDismiss(open, () => send({ type: 'user.close' }), true);

  const { unread, notifications, deliveries, error } = state.context;
  return (
    <div className="bell" ref={wrapper}>
      <button
        type="button"
        className="icon-button"
        aria-label="Notifications"
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => send({ type: open ? 'user.close' : 'user.open' })}
      >
        <StrokeIcon size={20}>
          <path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9" />
          <path d="M13.7 21a2 2 0 0 1-3.4 0" />
        </StrokeIcon>
        {unread > 0 && (
          <span className="badge" data-testid="bell-badge" aria-label={`${unread} unread`}>
            {unread > 99 ? '99+' : unread}
          </span>
        )}
      </button>
      {open && (
        <div
          className="bell-panel"
          role="dialog"
          aria-label="Notifications"
          // A link followed from the panel (the alert manager, a symbol's chart) closes it.
          onClick={(event) => {
            if ((event.target as Element).closest('a[href]')) send({ type: 'user.close' });
          }}
        >
          <div className="panel-header">
            <strong>Notifications</strong>
            <Link to="/Alerts" className="bell-manage">
              Manage alerts
            </Link>
            <button
              type="button"
              className="icon-button small"
              aria-label="Close"
              onClick={() => send({ type: 'user.close' })}
            >
              ✕
            </button>
          </div>
          {state.matches({ data: 'loading' }) ? (
            <Skeleton lines={4} />
          ) : state.matches({ data: 'failed' }) ? (
            <Failed
              message={error ?? 'The notifications could not be loaded'}
              onRetry={() => send({ type: 'user.retry' })}
            />
          ) : notifications.length === 0 ? (
            <p className="empty">No alerts have fired yet. Create one from a chart or in the alert manager.</p>
          ) : (
            <Suspense fallback={<Skeleton lines={4} />}>
              <BellGrid notifications={notifications} deliveries={deliveries} />
            </Suspense>
          )}
          {state.matches({ data: 'ready' }) && unread > 0 && (
            <p className="bell-older">
              {unread === 1 ? '1 older unread notification is' : `${unread} older unread notifications are`} not listed
              here.{' '}
              <button
                type="button"
                className="button small"
                disabled={state.matches({ panel: { open: 'markingAll' } })}
                onClick={() => send({ type: 'user.markAll' })}
              >
                Mark all read
              </button>
            </p>
          )}
        </div>
      )}
    </div>
  );
}
