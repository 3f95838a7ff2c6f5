/**
 * The Art page (/Art): a live market map of the universe (sectors by market cap, each company a tile coloured
 * by today's % change, a click opens its chart), the day's biggest movers, "Save this map" into the gallery, and
 * the gallery of the user's chart snapshots (thumbnail, title, symbol, date; open full size; delete).
 */
import { useMachine } from '@xstate/react';
import type { PlotMouseEvent } from 'plotly.js';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Chart } from '../../components/Chart.tsx';
import { DeleteButton } from '../../components/DeleteButton.tsx';
import { Dismissible, Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { Link } from '../../components/Link.tsx';
import { PriceFlash } from '../../components/PriceFlash.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { usePreferences } from '../../services/preferences.ts';
import { chartPath, navigate } from '../../services/router.ts';
import { formatDateTime } from '../../services/time.ts';
import { artMachine, sizeText, snapshotImagePath, type ArtEvent, type Snapshot } from './art.machine.ts';
import { formatSignedPercent } from '../../../domain/format.ts';
import {
  COLOR_LIMIT,
  LIVE_SYMBOLS_MAX,
  formatPrice,
  marketMapFigure,
  movers,
  type MapCompany,
  type MapQuote,
} from './treemap.ts';
import './art.css';

const screenMachine = artMachine.provide({
  actions: { openChart: (_, params) => navigate(chartPath(params.symbol)) },
});

type Send = (event: ArtEvent) => void;

function MoverList(props: { readonly title: string; readonly rows: readonly (MapCompany & MapQuote)[] }) {
  return (
    <div className="art-movers-list">
      <h3>{props.title}</h3>
      {props.rows.length === 0 ? (
        <p className="hint">None yet today</p>
      ) : (
        <ol>
          {props.rows.map((row) => (
            <li key={row.symbol}>
              <SymbolChip symbol={row.symbol} />
              <PriceFlash value={row.price} className="art-price">
                {formatPrice(row.price)}
              </PriceFlash>
              <PriceFlash value={row.changepct} className={row.changepct >= 0 ? 'up' : 'down'}>
                {formatSignedPercent(row.changepct)}
              </PriceFlash>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function SnapshotCard(props: {
  readonly snapshot: Snapshot;
  readonly deleting: boolean;
  readonly onOpen: () => void;
  readonly send: Send;
}) {
  const { snapshot, deleting, onOpen, send } = props;
  const { timeZone } = usePreferences();
  return (
    <li className="card art-snapshot" aria-busy={deleting}>
      <button type="button" className="art-thumb" onClick={onOpen} aria-label={`Open ${snapshot.title} full size`}>
        <img src={snapshotImagePath(snapshot.id)} alt={snapshot.title} loading="lazy" />
      </button>
      <div className="art-snapshot-meta">
        <h3>{snapshot.title}</h3>
        <p className="hint">
          {snapshot.symbol ? <SymbolChip symbol={snapshot.symbol} addable={false} /> : 'Market map'} ·{' '}
          {formatDateTime(snapshot.createdt, timeZone)} · {sizeText(snapshot.bytes)}
        </p>
      </div>
      <div className="art-snapshot-actions">
        <a className="button" href={snapshotImagePath(snapshot.id)} download={`${snapshot.title}.png`}>
          Export PNG
        </a>
        <DeleteButton
          label={`Delete snapshot ${snapshot.title}`}
          deleting={deleting}
          onDelete={() => send({ type: 'user.deleteSnapshot', id: snapshot.id })}
        />
      </div>
    </li>
  );
}

function FullSize({ snapshot, onClose }: { readonly snapshot: Snapshot; readonly onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    close.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <div className="art-overlay" onClick={onClose}>
      <div
        className="art-full"
        role="dialog"
        aria-modal="true"
        aria-label={snapshot.title}
        onClick={(event) => event.stopPropagation()}
      >
        <header>
          <h2>{snapshot.title}</h2>
          <button ref={close} type="button" className="icon-button" aria-label="Close" onClick={onClose}>
            ✕
          </button>
        </header>
        <img src={snapshotImagePath(snapshot.id)} alt={snapshot.title} />
        {snapshot.symbol && (
          <p>
            <Link to={chartPath(snapshot.symbol)}>Open the {snapshot.symbol} chart</Link>
          </p>
        )}
      </div>
    </div>
  );
}

/** The Art page. */
export default function ArtScreen() {
  const [state, send] = useMachine(screenMachine);
  const { context } = state;
  const graph = useRef<HTMLElement | null>(null);
  const [drawn, setDrawn] = useState(false);
  const [open, setOpen] = useState<Snapshot | null>(null);
  const closeFull = useCallback(() => setOpen(null), []);
  const figure = useMemo(() => marketMapFigure(context.companies, context.quotes), [context.companies, context.quotes]);
  const sectorCount = useMemo(() => new Set(context.companies.map((c) => c.sector)).size, [context.companies]);
  const moves = useMemo(() => movers(context.companies, context.quotes), [context.companies, context.quotes]);
  const saving = state.matches({ map: { ready: { export: 'saving' } } });
  const mapReady = state.matches({ map: 'ready' });

  const onClick = (event: PlotMouseEvent) => {
    // A company's tile opens its chart; a click on a sector zooms into it (Plotly's own).
    const symbol = (event.points[0]?.customdata as unknown as readonly unknown[] | undefined)?.[0];
    if (typeof symbol === 'string' && symbol !== '') send({ type: 'user.openTile', symbol });
  };
  const saveMap = () => {
    if (!graph.current) return;
    send({ type: 'user.saveMap', graph: graph.current, title: `Market map ${formatDateTime(Date.now())}` });
  };

  return (
    <section className="screen art">
      <div className="art-header">
        <h1>Art</h1>
        <button type="button" className="button primary" disabled={!mapReady || !drawn || saving} onClick={saveMap}>
          {saving ? 'Saving the map…' : 'Save this map'}
        </button>
      </div>
      {context.actionError && (
        <Dismissible message={context.actionError} onDismiss={() => send({ type: 'user.dismissError' })} />
      )}
      <section className="card art-map" aria-labelledby="art-map-title">
        <h2 id="art-map-title">Market map</h2>
        <p className="hint">
          Each tile is a company sized by market cap and grouped by sector, coloured by today's change (red down, green
          up, full colour at ±{COLOR_LIMIT}%). Click a sector to zoom into it, a tile to open its chart. The{' '}
          {LIVE_SYMBOLS_MAX} largest companies update live; the others every 5 seconds.
        </p>
        {state.matches({ map: 'loading' }) ? (
          <Skeleton lines={10} height={40} />
        ) : state.matches({ map: 'failed' }) ? (
          <Failed
            message={context.error ?? 'The market map could not be loaded'}
            onRetry={() => send({ type: 'user.retry' })}
          />
        ) : context.companies.length === 0 ? (
          <Empty>The universe has no companies to map.</Empty>
        ) : (
          <div data-testid="art-map">
            <Chart
              data={figure.data}
              layout={figure.layout}
              config={{ displayModeBar: false, scrollZoom: false }}
              height={620}
              label={`Market map of ${context.companies.length} companies in ${sectorCount} sectors, coloured by today's change`}
              onClick={onClick}
              onInitialized={(_, div) => {
                graph.current = div;
                setDrawn(true);
              }}
            />
          </div>
        )}
      </section>
      {mapReady && (
        <section className="card art-movers" aria-label="Biggest moves today">
          <MoverList title="Top gainers" rows={moves.gainers} />
          <MoverList title="Top losers" rows={moves.losers} />
        </section>
      )}
      <section className="card art-gallery" aria-labelledby="art-gallery-title">
        <h2 id="art-gallery-title">Gallery</h2>
        {state.matches({ gallery: 'loading' }) ? (
          <Skeleton lines={3} height={60} />
        ) : state.matches({ gallery: 'failed' }) ? (
          <Failed
            message={context.galleryError ?? 'The gallery could not be loaded'}
            onRetry={() => send({ type: 'user.retryGallery' })}
          />
        ) : context.gallery.length === 0 ? (
          <Empty>
            Your gallery is empty: open a price chart and press “Save snapshot”, or save this market map with “Save this
            map”.
          </Empty>
        ) : (
          <ul className="art-snapshots" aria-label="Snapshots">
            {context.gallery.map((snapshot) => (
              <SnapshotCard
                key={snapshot.id}
                snapshot={snapshot}
                deleting={context.deleting === snapshot.id}
                onOpen={() => setOpen(snapshot)}
                send={send}
              />
            ))}
          </ul>
        )}
      </section>
      {open && <FullSize snapshot={open} onClose={closeFull} />}
    </section>
  );
}
