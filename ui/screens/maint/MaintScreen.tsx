/**
 * The Maint page (/Maint): for every user, the market data status, the tick source and its rate, the
 * projections' lags (read again every few seconds) and the rebuild check's progress and result; for operators,
 * the button that starts the check; for auditors, the audit trail of a user.
 */
import { useMachine } from '@xstate/react';
import type { ColDef } from 'ag-grid-community';
import { Grid } from '../../components/Grid.tsx';
import { Failed, Skeleton } from '../../components/LoadState.tsx';
import { plural } from '../../components/plural.ts';
import { PriceFlash } from '../../components/PriceFlash.tsx';
import { usePreferences } from '../../services/preferences.ts';
import { formatDateTime, formatTime } from '../../services/time.ts';
import { AuditPanel, AuditorsOnly } from './AuditPanel.tsx';
import {
  countText,
  durationText,
  rebuildProgress,
  rebuildSummary,
  type MaintStatus,
  type ProjectionLag,
  type RebuildJob,
} from './maint.logic.ts';
import { STATUS_POLL_MS, maintMachine, type MaintEvent } from './maint.machine.ts';
import './maint.css';

const LAG_COLUMNS: ColDef<ProjectionLag>[] = [
  { headerName: 'Projection', field: 'name', flex: 1, minWidth: 160 },
  { headerName: 'Checkpoint', field: 'position', width: 130 },
  {
    headerName: 'State',
    field: 'behind',
    width: 130,
    cellDataType: false,
    valueFormatter: (p) => (p.value ? 'behind' : 'up to date'),
    cellClass: (p) => (p.value ? 'down' : 'up'),
  },
  { headerName: 'Events behind', field: 'lagEvents', width: 140, type: 'numericColumn' },
  {
    headerName: 'Lag',
    field: 'lagMs',
    width: 120,
    type: 'numericColumn',
    valueFormatter: (p) => durationText(p.value as number),
  },
];

function sourceText(market: MaintStatus['market']): string {
  if (market.source === 'imported') return 'Imported';
  if (market.source === 'mixed') return `Simulated, ${plural(market.importedSymbols.length, 'symbol')} imported`;
  return 'Simulated';
}

function StatusCards({ status, statusAt }: { readonly status: MaintStatus; readonly statusAt: number | null }) {
  const { timeZone } = usePreferences();
  const { market, ticks } = status;
  return (
    <div className="cards maint-status">
      <article className="card" aria-labelledby="maint-market">
        <h2 id="maint-market">Market data</h2>
        <dl className="maint-facts">
          <dt>Source</dt>
          <dd>
            <span className={`maint-badge ${market.simulated ? 'simulated' : 'imported'}`}>{sourceText(market)}</span>
          </dd>
          <dt>As of</dt>
          <dd data-testid="maint-asof">{market.asOf}</dd>
          <dt>Symbols</dt>
          <dd>{market.symbols}</dd>
          <dt>Daily bars</dt>
          <dd>{countText(market.bars)}</dd>
          <dt>Range</dt>
          <dd>{market.from && market.to ? `${market.from} – ${market.to}` : 'no bars'}</dd>
          <dt>Last tick</dt>
          <dd>{market.lastTick ? formatDateTime(market.lastTick, timeZone, { seconds: true }) : 'no tick yet'}</dd>
        </dl>
      </article>
      <article className="card" aria-labelledby="maint-ticks">
        <h2 id="maint-ticks">Ticks</h2>
        <dl className="maint-facts">
          <dt>Source</dt>
          <dd data-testid="maint-tick-source">{ticks.feed?.name ?? ticks.source ?? 'none in this process'}</dd>
          {ticks.feed !== null && (
            <>
              <dt>Delay</dt>
              <dd data-testid="maint-feed-delay">{ticks.feed.delay}</dd>
              <dt>Health</dt>
              <dd className={ticks.feed.ok ? 'up' : 'down'} data-testid="maint-feed-health">
                {ticks.feed.health}
              </dd>
            </>
          )}
          <dt>Live</dt>
          <dd className={ticks.live ? 'up' : 'down'}>{ticks.live ? 'yes' : 'no'}</dd>
          {ticks.feed === null && ticks.health !== null && (
            <>
              <dt>Stream</dt>
              <dd className={ticks.live ? 'up' : 'down'} data-testid="maint-stream-health">
                {ticks.health}
              </dd>
            </>
          )}
          <dt>Rate</dt>
          <dd>
            <PriceFlash value={ticks.ticksPerSec}>{ticks.ticksPerSec.toFixed(1)} ticks/s</PriceFlash>
          </dd>
          <dt>Ticks evaluated</dt>
          <dd>
            <PriceFlash value={ticks.ticks}>{countText(ticks.ticks)}</PriceFlash>
          </dd>
          <dt>Armed alerts</dt>
          <dd>{ticks.armedAlerts}</dd>
        </dl>
      </article>
      <article className="card" aria-labelledby="maint-log">
        <h2 id="maint-log">Event log</h2>
        <dl className="maint-facts">
          <dt>Head</dt>
          <dd>{status.events.head}</dd>
          <dt>Projections</dt>
          <dd>
            {status.projections.length}, {status.projections.filter((p) => p.behind).length} behind
          </dd>
          <dt>Updated</dt>
          <dd data-testid="maint-updated">
            {statusAt ? formatTime(statusAt, timeZone) : '–'} (every {STATUS_POLL_MS / 1000} s)
          </dd>
        </dl>
      </article>
    </div>
  );
}

function RebuildCard(props: {
  readonly job: RebuildJob | null;
  readonly running: boolean;
  readonly busy: boolean;
  readonly error: string | null;
  /** Whether the user is an operator (null until the session is read). */
  readonly operator: boolean | null;
  readonly send: (event: MaintEvent) => void;
}) {
  const { job, running, busy, error, operator, send } = props;
  const share = job ? rebuildProgress(job) : 0;
  const { timeZone } = usePreferences();
  return (
    <section className="card maint-rebuild" aria-labelledby="maint-rebuild-title">
      <h2 id="maint-rebuild-title">Rebuild check</h2>
      <p className="hint">
        Replays the whole event log into scratch read models and compares them with the live ones, which are only read.
      </p>
      {operator === true && (
        <button type="button" className="button primary" disabled={busy} onClick={() => send({ type: 'user.rebuild' })}>
          {running ? 'Checking…' : busy ? 'Starting…' : 'Run the rebuild check'}
        </button>
      )}
      {operator === false && (
        <p className="hint" data-testid="maint-rebuild-operators">
          The rebuild check is for operators: its progress and result are shown here when one runs.
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {running && job && (
        <div className="maint-progress" role="status">
          <progress
            max={1}
            value={share}
            aria-label="Rebuild check progress"
            aria-valuetext={`${job.processed} of ${job.total || '?'} events replayed`}
          />
          <span>
            {job.processed} of {job.total || '…'} events replayed ({Math.round(share * 100)}%)
          </span>
        </div>
      )}
      {!running && job && (job.state === 'done' || job.state === 'failed') && (
        <div className="maint-result" data-testid="maint-rebuild-result">
          <p className={job.state === 'done' && job.differenceCount === 0 ? 'maint-ok' : 'maint-bad'} role="status">
            {job.state === 'done' && job.differenceCount === 0 ? '✓ ' : '✗ '}
            {rebuildSummary(job)}
          </p>
          <p className="hint">
            {job.finishedAt ? `Finished ${formatDateTime(job.finishedAt, timeZone, { seconds: true })}` : ''}
            {job.head ? `, log head ${job.head}` : ''}
            {job.eventsPerSec ? `, ${Math.round(job.eventsPerSec).toLocaleString()} events/s` : ''}
          </p>
          {job.differences.length > 0 && (
            <table className="maint-differences">
              <caption className="sr-only">Documents that differ</caption>
              <thead>
                <tr>
                  <th scope="col">Read model</th>
                  <th scope="col">Document</th>
                  <th scope="col">Difference</th>
                  <th scope="col">First differing path</th>
                </tr>
              </thead>
              <tbody>
                {job.differences.map((d, i) => (
                  <tr key={`${d.collection}-${d.key ?? 'other'}-${i}`}>
                    <td>{d.collection}</td>
                    <td>{d.key ?? "another user's"}</td>
                    <td>{d.kind}</td>
                    <td>
                      <code>{d.path}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </section>
  );
}

/** The Maint page. */
export default function MaintScreen() {
  const [state, send] = useMachine(maintMachine);
  const { context } = state;
  const audit = state.children.audit;
  const running = state.matches({ rebuild: 'running' });

  return (
    <section className="screen maint">
      <h1>Maint</h1>
      {state.matches({ status: 'loading' }) ? (
        <Skeleton lines={8} />
      ) : state.matches({ status: 'failed' }) || !context.status ? (
        <Failed
          message={context.error ?? 'The status could not be read'}
          onRetry={() => send({ type: 'user.retry' })}
        />
      ) : (
        <>
          {context.staleError && (
            <p className="error" role="alert">
              The last refresh failed ({context.staleError}); showing the status read before.
            </p>
          )}
          <StatusCards status={context.status} statusAt={context.statusAt} />
          <section className="card maint-lags" aria-labelledby="maint-lags-title">
            <h2 id="maint-lags-title">Projection lags</h2>
            <Grid<ProjectionLag>
              compact
              exportName="projections"
              rowData={context.status.projections}
              columnDefs={LAG_COLUMNS}
              getRowId={(p) => p.data.name}
              domLayout="autoHeight"
            />
          </section>
        </>
      )}
      <RebuildCard
        job={context.job}
        running={running}
        busy={running || state.matches({ rebuild: 'starting' }) || state.matches({ rebuild: 'checking' })}
        error={context.rebuildError}
        operator={context.operator}
        send={send}
      />
      {audit && <AuditPanel actor={audit} />}
      {state.matches({ audit: 'notAuditor' }) && <AuditorsOnly />}
    </section>
  );
}
