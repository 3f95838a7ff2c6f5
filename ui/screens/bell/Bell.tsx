/**
 * The bell in the top bar: badge with the unread count and the panel with the notifications grid (compact,
 * 15 rows a page, no column menu; Price/SMA, green up and red down indicators). Outside click or Escape
 * closes it; opening it marks them read.
 */
import { useMachine } from '@xstate/react';
import type { ColDef, ICellRendererParams } from 'ag-grid-community';
import { Grid } from '../../components/Grid.tsx';
import { Failed, Skeleton } from '../../components/LoadState.tsx';
import { useDismiss } from '../../components/useDismiss.ts';
import { bellMachine, type BellNotification } from './bell.machine.ts';

/** Rows per page of the panel (spec section 9). */
export const BELL_PAGE_SIZE = 15;

/** The label of a notification type. */
export function notificationTypeLabel(type: number): string {
  return type === 1 ? 'Price' : type === 2 ? 'SMA' : `Type ${type}`;
}

/** The direction a message reads: `+` up, `-` down. */
export function messageDirection(message: string): 'up' | 'down' | null {
  if (message.includes('+')) return 'up';
  if (message.includes('-')) return 'down';
  return null;
}

function AlertCell({ data }: ICellRendererParams<BellNotification>) {
  if (!data) return null;
  const direction = messageDirection(data.notifcationmessage);
  return (
    <span className="bell-alert">
      {direction === 'up' && (
        <span className="indicator up" role="img" aria-label="up">
          ▲
        </span>
      )}
      {direction === 'down' && (
        <span className="indicator down" role="img" aria-label="down">
          ▼
        </span>
      )}
      <span className="bell-type">{notificationTypeLabel(data.notificationtype)}</span>
      <span>{data.notifcationmessage}</span>
    </span>
  );
}

const columns: ColDef<BellNotification>[] = [
  { headerName: 'Stock', field: 'symbol', width: 90 },
  { headerName: 'Alert', field: 'notifcationmessage', flex: 1, cellRenderer: AlertCell, minWidth: 260 },
];

/** The bell and its panel. */
export function Bell() {
  const [state, send] = useMachine(bellMachine);
  const open = state.matches({ panel: 'open' });
  const wrapper = useDismiss(open, () => send({ type: 'user.close' }), true);

  const { unread, notifications, error } = state.context;
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
        <svg
          aria-hidden="true"
          width="20"
          height="20"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
        >
          <path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9" />
          <path d="M13.7 21a2 2 0 0 1-3.4 0" />
        </svg>
        {unread > 0 && (
          <span className="badge" data-testid="bell-badge" aria-label={`${unread} unread`}>
            {unread > 99 ? '99+' : unread}
          </span>
        )}
      </button>
      {open && (
        <div className="bell-panel" role="dialog" aria-label="Notifications">
          <div className="panel-header">
            <strong>Notifications</strong>
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
            <p className="empty">No alerts have fired yet. Create a price or SMA alert from a chart.</p>
          ) : (
            <div className="bell-grid">
              <Grid<BellNotification>
                compact
                rowData={notifications as BellNotification[]}
                columnDefs={columns}
                getRowId={(p) => p.data.id}
                pagination
                paginationPageSize={BELL_PAGE_SIZE}
                paginationPageSizeSelector={false}
                domLayout="autoHeight"
              />
            </div>
          )}
        </div>
      )}
    </div>
  );
}
