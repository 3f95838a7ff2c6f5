/**
 * The bell panel's grid: compact, 15 rows a page, the type's name (Price, SMA, EMA, RSI, Volume, Change %)
 * with green up and red down indicators, and when each alert fired (in the zone the viewer picked).
 */
import type { ColDef, ICellRendererParams } from 'ag-grid-community';
import { notificationTypeName } from '../../../domain/notifications/notifications.ts';
import { Grid } from '../../components/Grid.tsx';
import { formatRecent } from '../../services/time.ts';
import type { BellNotification } from './bell.machine.ts';

/** Rows per page of the panel (spec section 9). */
export const BELL_PAGE_SIZE = 15;

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
      <span className="bell-type">{notificationTypeName(data.notificationtype)}</span>
      <span>{data.notifcationmessage}</span>
    </span>
  );
}

const columns: ColDef<BellNotification>[] = [
  { headerName: 'Stock', field: 'symbol', width: 90 },
  { headerName: 'Alert', field: 'notifcationmessage', flex: 1, cellRenderer: AlertCell, minWidth: 220 },
  { headerName: 'Time', field: 'createdt', width: 150, valueFormatter: (p) => formatRecent(p.value as string) },
];

/** The notifications of the panel as a grid. */
export default function BellGrid({ notifications }: { readonly notifications: readonly BellNotification[] }) {
  return (
    <div className="bell-grid">
      <Grid<BellNotification>
        compact
        exportName="notifications"
        rowData={notifications as BellNotification[]}
        columnDefs={columns}
        getRowId={(p) => p.data.id}
        pagination
        paginationPageSize={BELL_PAGE_SIZE}
        paginationPageSizeSelector={false}
        domLayout="autoHeight"
      />
    </div>
  );
}
