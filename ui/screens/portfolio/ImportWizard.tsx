/**
 * The import wizard: pick a CSV file (generic, Interactive Brokers activity statement or Schwab history), see
 * each row's verdict in a grid, then record every new row at once.
 */
import { useMachine } from '@xstate/react';
import { useId, useMemo, type ChangeEvent } from 'react';
import type { ColDef } from 'ag-grid-community';
import { IMPORT_FORMATS, MAX_IMPORT_BYTES } from '../../../domain/portfolio/importFormats.ts';
import { Grid } from '../../components/Grid.tsx';
import { Dismissible } from '../../components/LoadState.tsx';
import { NARROW_QUERY, useMediaQuery } from '../../services/media.ts';
import { tradingDayTitle } from '../../services/time.ts';
import { priceOf, sizeOf } from './ledger.ts';
import { importMachine, type ImportPreviewAnswer, type PickedFormat } from './import.machine.ts';

const FORMAT_LABELS: Readonly<Record<PickedFormat, string>> = {
  auto: 'Tell from the file',
  generic: 'Generic CSV',
  ibkr: 'Interactive Brokers activity statement',
  schwab: 'Schwab transaction history',
};

type PreviewRow = ImportPreviewAnswer['rows'][number];

const columns: ColDef<PreviewRow>[] = [
  { field: 'line', headerName: 'Line', width: 80 },
  {
    field: 'verdict',
    headerName: 'Verdict',
    width: 110,
    cellClass: (p) => `verdict-${String(p.value)}`,
  },
  { headerName: 'Kind', valueGetter: (p) => p.data?.transaction?.kind ?? '', width: 100 },
  { headerName: 'Symbol', valueGetter: (p) => p.data?.transaction?.symbol ?? '', width: 100 },
  { headerName: tradingDayTitle(), valueGetter: (p) => p.data?.transaction?.date ?? '', width: 120 },
  {
    headerName: 'Quantity / amount',
    valueGetter: (p) => (p.data?.transaction ? sizeOf(p.data.transaction) : ''),
    width: 150,
  },
  {
    headerName: 'Price',
    valueGetter: (p) => (p.data?.transaction ? (priceOf(p.data.transaction) ?? '') : ''),
    width: 110,
  },
  { field: 'column', headerName: 'Column', width: 140 },
  { field: 'message', headerName: 'Note', flex: 1, minWidth: 220 },
];

/**
 * On a phone the reason comes right after the verdict, wrapped on as many lines as it needs, and the column it
 * names after it: at the end of the row it was off-screen, so a refused file said nothing of why.
 */
const narrowColumns: ColDef<PreviewRow>[] = [
  { ...columns[0]!, width: 64 },
  { ...columns[1]!, width: 96 },
  { field: 'message', headerName: 'Note', flex: 1, minWidth: 170, wrapText: true, autoHeight: true },
  ...columns.filter((c) => c.field === 'column'),
  ...columns.slice(2).filter((c) => c.field !== 'column' && c.field !== 'message'),
];

/** The import wizard. */
export function ImportWizard() {
  const id = useId();
  const [state, send] = useMachine(importMachine);
  const narrow = useMediaQuery(NARROW_QUERY);
  const { preview, result, error, fileName, format } = state.context;
  const rows = useMemo(() => (preview ? [...preview.rows] : []), [preview]);

  const pick = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    if (file.size > MAX_IMPORT_BYTES) {
      send({ type: 'user.reset' });
      window.alert(`${file.name} is larger than ${MAX_IMPORT_BYTES / 1024} KB`);
      return;
    }
    send({ type: 'user.pickFile', fileName: file.name, csv: await file.text() });
  };

  return (
    <div className="card import-wizard" role="group" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Import transactions</h2>
      <div className="import-controls">
        <label htmlFor={`${id}-file`}>
          CSV file
          <input id={`${id}-file`} type="file" accept=".csv,text/csv" onChange={(e) => void pick(e)} />
        </label>
        <label htmlFor={`${id}-format`}>
          Format
          <select
            id={`${id}-format`}
            value={format}
            onChange={(e) => send({ type: 'user.pickFormat', format: e.target.value as PickedFormat })}
          >
            {(['auto', ...IMPORT_FORMATS] as const).map((f) => (
              <option key={f} value={f}>
                {FORMAT_LABELS[f]}
              </option>
            ))}
          </select>
        </label>
      </div>
      {error && <Dismissible message={error} onDismiss={() => send({ type: 'user.reset' })} />}
      {state.matches('previewing') && <p role="status">Reading {fileName}…</p>}
      {preview && !state.matches('done') && (
        <>
          <p role="status" data-testid="import-summary">
            {fileName} ({FORMAT_LABELS[preview.format]}): {preview.counts.new} new, {preview.counts.duplicate} recorded
            already, {preview.counts.skipped} skipped, {preview.counts.refused} refused
          </p>
          <div
            className="import-grid"
            // On a phone a row's reason wraps over lines: rows are taller there.
            style={{ height: Math.min(narrow ? 480 : 360, 60 + rows.length * (narrow ? 84 : 42)) }}
          >
            <Grid<PreviewRow>
              rowData={rows}
              columnDefs={narrow ? narrowColumns : columns}
              getRowId={(p) => String(p.data.line)}
            />
          </div>
          <div className="import-actions">
            <button
              type="button"
              className="button primary"
              disabled={preview.counts.refused > 0 || preview.counts.new === 0 || state.matches('committing')}
              onClick={() => send({ type: 'user.commit' })}
            >
              Import {preview.counts.new} {preview.counts.new === 1 ? 'transaction' : 'transactions'}
            </button>
            <button type="button" className="button" onClick={() => send({ type: 'user.reset' })}>
              Cancel
            </button>
            {preview.counts.refused > 0 && (
              <span className="error">Fix the refused rows first: nothing is imported while any row is refused.</span>
            )}
          </div>
        </>
      )}
      {state.matches('done') && result && (
        <p role="status" data-testid="import-result">
          Imported {result.counts.new} {result.counts.new === 1 ? 'transaction' : 'transactions'}
          {result.counts.duplicate > 0 ? ` (${result.counts.duplicate} recorded already)` : ''}.{' '}
          <button type="button" className="button small" onClick={() => send({ type: 'user.reset' })}>
            Import another file
          </button>
        </p>
      )}
    </div>
  );
}
