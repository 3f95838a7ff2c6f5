/**
 * The bell panel's grid: compact, 15 rows a page; a narrow Stock column, the Alert column with green up and red
 * down indicators, the type's name (Price, SMA, EMA, RSI, Volume, Change %) and the whole message wrapping over
 * as many lines as it needs (the level and the fired price stay visible), and when each alert fired (in the
 * zone the viewer picked). On a narrow screen the Stock column is left out (each message starts with the symbol)
 * and the time takes less room, so the message has most of the width. Under a message, a warning line for each
 * of its deliveries that failed or waits for a retry, naming the channel (the user's channels are read when the
 * grid shows; by its kind until then, or if they cannot be).
 */
import { useMachine } from '@xstate/react';
import type { ColDef, ICellRendererParams } from 'ag-grid-community';
import { useMemo } from 'react';
import type { DeliveryAnswer } from '../../../domain/contract/channels.ts';
import { channelListMachine } from '../../components/channelList.machine.ts';
import { Grid, compactGridTheme } from '../../components/Grid.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { NARROW_QUERY, useMediaQuery } from '../../services/media.ts';
import { usePreferences } from '../../services/preferences.ts';
import { formatRecent } from '../../services/time.ts';
import { BellAlert } from './BellAlert.tsx';
import { bellAlertWords, bellRows, type BellRow } from './bellText.ts';
import type { BellNotification } from './bell.machine.ts';

/** Rows per page of the panel (spec section 9). */
export const BELL_PAGE_SIZE = 15;

/** The symbol, a link to its chart (the panel closes behind it). */
function StockCell({ data }: ICellRendererParams<BellRow>) {
  return data ? <SymbolChip symbol={data.symbol} addable={false} /> : null;
}

function AlertCell({ data }: ICellRendererParams<BellRow>) {
  return data ? <BellAlert notification={data} /> : null;
}

const columns: ColDef<BellRow>[] = [
  { headerName: 'Stock', field: 'symbol', width: 76, minWidth: 64, cellRenderer: StockCell },
  {
    headerName: 'Alert',
    field: 'notifcationmessage',
    flex: 1,
    minWidth: 150,
    cellRenderer: AlertCell,
    // The cell's value changes with its warnings, so that the cell is drawn again when they do.
    valueGetter: ({ data }) =>
      data ? [bellAlertWords(data).full, ...(data.warnings ?? []).map((w) => w.text)].join('\n') : '',
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
const narrowColumns: ColDef<BellRow>[] = [
  { ...columns[1]!, minWidth: 120 },
  { ...columns[2]!, width: 80 },
];

/** The notifications of the panel as a grid, with the warnings of their deliveries. */
export default function BellGrid(props: {
  readonly notifications: readonly BellNotification[];
  /** The user's latest deliveries. */
  readonly deliveries: readonly DeliveryAnswer[];
}) {
  const { notifications, deliveries } = props;
  const narrow = useMediaQuery(NARROW_QUERY);
  const { timeZone } = usePreferences();
  const [channelList] = useMachine(channelListMachine);
  const known = channelList.matches('ready') ? channelList.context.channels : null;
  // A row changes (and is drawn again) only when its warnings do.
  const rows = useMemo(
    () => bellRows(notifications, deliveries, known, timeZone),
    [notifications, deliveries, known, timeZone],
  );
  return (
    <div className="bell-grid">
      <Grid<BellRow>
        theme={bellTheme}
        exportName="notifications"
        rowData={rows as BellRow[]}
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
