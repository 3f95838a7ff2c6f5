/**
 * The bell panel's grid: compact, 15 rows a page; a narrow Stock column, the Alert column with green up and red
 * down indicators, the type's name (Price, SMA, EMA, RSI, Volume, Change %) and the whole message wrapping over
 * as many lines as it needs (the level and the fired price stay visible), and when each alert fired (in the
 * zone the viewer picked). On a narrow screen the Stock column is left out (each message starts with the symbol)
 * and the time takes less room, so the message has most of the width.
 */
import type { ColDef, ICellRendererParams } from 'ag-grid-community';
import { Grid, compactGridTheme } from '../../components/Grid.tsx';
import { NARROW_QUERY, useMediaQuery } from '../../services/media.ts';
import { formatRecent } from '../../services/time.ts';
import { BellAlert } from './BellAlert.tsx';
import { bellAlertWords } from './bellText.ts';
import type { BellNotification } from './bell.machine.ts';

/** Rows per page of the panel (spec section 9). */
export const BELL_PAGE_SIZE = 15;

function AlertCell({ data }: ICellRendererParams<BellNotification>) {
  return data ? <BellAlert notification={data} /> : null;
}

const columns: ColDef<BellNotification>[] = [
  { headerName: 'Stock', field: 'symbol', width: 76, minWidth: 64 },
  {
    headerName: 'Alert',
    field: 'notifcationmessage',
    flex: 1,
    minWidth: 150,
    cellRenderer: AlertCell,
    // The CSV holds the message and the alert's note.
    valueFormatter: ({ data }) => (data ? bellAlertWords(data).full : ''),
    wrapText: true,
    autoHeight: true,
  },
  {
    headerName: 'Time',
    field: 'createdt',
    width: 112,
    wrapText: true,
    autoHeight: true,
    valueFormatter: (p) => formatRecent(p.value as string),
  },
];

/** The compact theme without the empty space an auto-height grid keeps under a few rows (the panel has one or more). */
const bellTheme = compactGridTheme.withParams({ autoHeightMinBodyHeight: 0 });

/** The columns on a narrow screen: the message and the time. */
const narrowColumns: ColDef<BellNotification>[] = [
  { ...columns[1]!, minWidth: 120 },
  { ...columns[2]!, width: 80 },
];

/** The notifications of the panel as a grid. */
export default function BellGrid({ notifications }: { readonly notifications: readonly BellNotification[] }) {
  const narrow = useMediaQuery(NARROW_QUERY);
  return (
    <div className="bell-grid">
      <Grid<BellNotification>
        theme={bellTheme}
        exportName="notifications"
        rowData={notifications as BellNotification[]}
        columnDefs={narrow ? narrowColumns : columns}
        getRowId={(p) => p.data.id}
        pagination
        paginationPageSize={BELL_PAGE_SIZE}
        paginationPageSizeSelector={false}
        domLayout="autoHeight"
      />
    </div>
  );
}
