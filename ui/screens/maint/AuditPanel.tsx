/**
 * The audit part of the Maint page, shown to auditors only: find a user by the start of the name and pick them
 * (the server lists at most {@link USER_LIST_MAX} accounts at once, and the part says when the list stops there),
 * the user's events in a grid (filtered
 * by type and time; a click on a row moves the slider there), a time slider over the history with the user's
 * state at that moment as foldable per-concern cards, and the hash-chain verification.
 */
import { useSelector } from '@xstate/react';
import type { ColDef, RowClickedEvent } from 'ag-grid-community';
import { useId, useMemo } from 'react';
import type { ActorRefFrom } from 'xstate';
import { USER_LIST_MAX } from '../../../domain/contract/audit.ts';
import { Grid } from '../../components/Grid.tsx';
import { Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { plural } from '../../components/plural.ts';
import type { auditMachine } from './audit.machine.ts';
import { JsonTree } from './JsonTree.tsx';
import { usePreferences } from '../../services/preferences.ts';
import { formatDateTime, fromFieldValue, toFieldValue, zoneLabel } from '../../services/time.ts';
import { comparePositions, eventTypeCounts, filterEvents, stateCards, type AuditEvent } from './maint.logic.ts';

/** A row of the event grid: the event and its index in the whole history. */
interface EventRow extends AuditEvent {
  readonly index: number;
}

const timeText = (iso: string) => formatDateTime(iso, undefined, { seconds: true });

const COLUMNS: ColDef<EventRow>[] = [
  { headerName: '#', field: 'index', width: 70, valueFormatter: (p) => String((p.value as number) + 1) },
  { headerName: 'Time', field: 'at', width: 190, valueFormatter: (p) => timeText(p.value as string) },
  { headerName: 'Type', field: 'type', width: 220 },
  { headerName: 'Stream', field: 'stream', flex: 1, minWidth: 160 },
  { headerName: 'Rev.', field: 'revision', width: 70 },
  { headerName: 'Position', field: 'position', width: 100, comparator: comparePositions },
  { headerName: 'Actor', field: 'actor', width: 120, valueFormatter: (p) => (p.value as string | null) ?? '–' },
  {
    headerName: 'Hash',
    field: 'hashOk',
    width: 80,
    cellDataType: false,
    valueFormatter: (p) => (p.value === true ? '✓ ok' : p.value === false ? '✗ bad' : '–'),
    cellClass: (p) => (p.value === false ? 'down' : p.value === true ? 'up' : ''),
  },
  {
    headerName: 'Data',
    field: 'data',
    cellDataType: false,
    flex: 2,
    minWidth: 200,
    sortable: false,
    valueFormatter: (p) => JSON.stringify(p.value),
    tooltipValueGetter: (p) => JSON.stringify(p.value, null, 2),
  },
];

/** What a user who may not audit sees in place of the audit part. */
export function AuditorsOnly() {
  return (
    <p className="hint">The audit trail of users (events, state at a moment, hash chains) is shown to auditors.</p>
  );
}

/**
 * What the user list holds, under the search field: nothing to say for a full list; a text no user name can start
 * with; no name starting with the text; or a list stopped at {@link USER_LIST_MAX}, to be narrowed by typing more.
 */
function UserListNote(props: {
  readonly invalid: boolean;
  readonly listed: string | null;
  readonly count: number;
  readonly cut: boolean;
}) {
  const text = props.invalid
    ? 'A user name has only a-z, 0-9, _ . and - (at most 32 characters): no user matches.'
    : props.cut
      ? `Showing the first ${USER_LIST_MAX}; type more of the name.`
      : props.listed && props.count === 0
        ? `No user name starts with “${props.listed}”.`
        : null;
  return text === null ? null : (
    <p className="hint" role="status" data-testid="maint-user-list">
      {text}
    </p>
  );
}

/** The audit part; a user who may not audit sees {@link AuditorsOnly}. */
export function AuditPanel({ actor }: { readonly actor: ActorRefFrom<typeof auditMachine> }) {
  const state = useSelector(actor, (s) => s);
  const { context } = state;
  const send = actor.send;
  const id = useId();
  const { timeZone } = usePreferences();
  const rows = useMemo<EventRow[]>(() => {
    const indexed = context.events.map((event, index) => ({ ...event, index }));
    const kept = new Set(filterEvents(context.events, context.filter).map((e) => e.id));
    return indexed.filter((row) => kept.has(row.id));
  }, [context.events, context.filter]);
  const types = useMemo(() => eventTypeCounts(context.events), [context.events]);

  if (state.matches('forbidden')) return <AuditorsOnly />;

  const onRow = (event: RowClickedEvent<EventRow>) => {
    if (event.data) send({ type: 'user.moveSlider', index: event.data.index });
  };
  const current = context.events[context.index];
  const inHistory = state.matches({ ready: { user: 'history' } });
  const searching = state.matches({ ready: { list: 'searching' } });
  // The user audited stays in the list while a search lists other names.
  const unlisted = context.selected !== null && !context.users.some((u) => u.username === context.selected);

  return (
    <section className="card maint-audit" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Audit trail</h2>
      {state.matches('probing') ? (
        <Skeleton lines={3} />
      ) : state.matches('failed') ? (
        <Failed
          message={context.error ?? 'The users could not be listed'}
          onRetry={() => send({ type: 'user.retry' })}
        />
      ) : (
        <>
          <div className="toolbar">
            <label htmlFor={`${id}-search`}>
              Find user
              <input
                id={`${id}-search`}
                type="search"
                value={context.search}
                placeholder="Start of the name"
                autoComplete="off"
                spellCheck={false}
                onChange={(e) => send({ type: 'user.search', text: e.target.value })}
              />
            </label>
            <label htmlFor={`${id}-user`}>
              User
              <select
                id={`${id}-user`}
                value={context.selected ?? ''}
                aria-busy={searching}
                onChange={(e) => e.target.value && send({ type: 'user.pickUser', username: e.target.value })}
              >
                <option value="" disabled>
                  Pick a user ({context.users.length})
                </option>
                {unlisted && <option value={context.selected ?? ''}>{context.selected}</option>}
                {context.users.map((u) => (
                  <option key={u.username} value={u.username}>
                    {u.username}
                    {u.roles.includes('auditor') ? ' (auditor)' : ''}
                  </option>
                ))}
              </select>
            </label>
            {searching && <span className="hint">Searching…</span>}
            {inHistory && (
              <button
                type="button"
                className="button"
                disabled={state.matches({ ready: { user: { history: { chain: 'verifying' } } } })}
                onClick={() => send({ type: 'user.verify' })}
              >
                {state.matches({ ready: { user: { history: { chain: 'verifying' } } } })
                  ? 'Verifying…'
                  : 'Verify hash chain'}
              </button>
            )}
          </div>
          {state.matches({ ready: { list: 'failed' } }) ? (
            <Failed
              message={`The users could not be listed: ${context.searchError ?? 'the server did not answer'}`}
              onRetry={() => send({ type: 'user.retrySearch' })}
            />
          ) : (
            <UserListNote
              invalid={state.matches({ ready: { list: 'invalid' } })}
              listed={context.listed}
              count={context.users.length}
              cut={context.cut}
            />
          )}
          {state.matches({ ready: { user: 'noUser' } }) && (
            <Empty>Pick a user to see their events and state over time.</Empty>
          )}
          {state.matches({ ready: { user: 'loadingHistory' } }) && <Skeleton lines={6} />}
          {state.matches({ ready: { user: 'historyFailed' } }) && (
            <Failed
              message={context.historyError ?? 'The history could not be read'}
              onRetry={() => send({ type: 'user.retryHistory' })}
            />
          )}
          {inHistory && (
            <>
              {context.verification && state.matches({ ready: { user: { history: { chain: 'verified' } } } }) && (
                <p
                  className={`maint-verify ${context.verification.intact ? 'ok' : 'broken'}`}
                  role="status"
                  data-testid="maint-verify"
                >
                  {context.verification.intact ? '✓ ' : '✗ '}
                  {context.verification.summary}
                  {context.verification.firstBreak && ` (log position ${context.verification.firstBreak.position})`}
                </p>
              )}
              {context.verifyError && state.matches({ ready: { user: { history: { chain: 'failed' } } } }) && (
                <Failed message={`The chain could not be verified: ${context.verifyError}`} />
              )}
              <h3>Events of {context.selected}</h3>
              {context.truncated && <p className="hint">Only the first {context.events.length} events are shown.</p>}
              <div className="toolbar">
                <label htmlFor={`${id}-type`}>
                  Type
                  <select
                    id={`${id}-type`}
                    value={context.filter.type}
                    onChange={(e) => send({ type: 'user.filter', patch: { type: e.target.value } })}
                  >
                    <option value="">All types ({context.events.length})</option>
                    {types.map((t) => (
                      <option key={t.type} value={t.type}>
                        {t.type} ({t.count})
                      </option>
                    ))}
                  </select>
                </label>
                <label htmlFor={`${id}-from`}>
                  From ({zoneLabel(context.filter.from || Date.now(), timeZone)})
                  <input
                    id={`${id}-from`}
                    type="datetime-local"
                    step={1}
                    value={toFieldValue(context.filter.from, timeZone)}
                    onChange={(e) =>
                      send({ type: 'user.filter', patch: { from: fromFieldValue(e.target.value, timeZone) } })
                    }
                  />
                </label>
                <label htmlFor={`${id}-to`}>
                  To ({zoneLabel(context.filter.to || Date.now(), timeZone)})
                  <input
                    id={`${id}-to`}
                    type="datetime-local"
                    step={1}
                    value={toFieldValue(context.filter.to, timeZone)}
                    onChange={(e) =>
                      send({ type: 'user.filter', patch: { to: fromFieldValue(e.target.value, timeZone) } })
                    }
                  />
                </label>
                <button type="button" className="button" onClick={() => send({ type: 'user.clearFilter' })}>
                  Clear filter
                </button>
                <span className="hint" role="status">
                  {rows.length} of {plural(context.events.length, 'event')}
                </span>
              </div>
              {rows.length === 0 ? (
                <Empty>No event matches the filter: choose another type or widen the time range.</Empty>
              ) : (
                <div className="maint-events" role="region" aria-label={`Events of ${context.selected ?? ''}`}>
                  <Grid<EventRow>
                    compact
                    exportName={`audit-${context.selected ?? ''}`}
                    rowData={rows}
                    columnDefs={COLUMNS}
                    getRowId={(p) => p.data.id}
                    onRowClicked={onRow}
                    rowClassRules={{ 'maint-current': (p) => p.data?.index === context.index }}
                    domLayout="autoHeight"
                    pagination
                    paginationPageSize={50}
                    paginationPageSizeSelector={false}
                    tooltipShowDelay={300}
                  />
                </div>
              )}
              <h3>State at a moment</h3>
              {context.events.length === 0 ? (
                <Empty>This user has no events.</Empty>
              ) : (
                <>
                  <div className="maint-slider">
                    <label htmlFor={`${id}-slider`}>Moment in {context.selected}'s history</label>
                    <input
                      id={`${id}-slider`}
                      type="range"
                      min={0}
                      max={context.events.length - 1}
                      step={1}
                      value={context.index}
                      aria-valuetext={
                        current
                          ? `after event ${context.index + 1} of ${context.events.length}: ${current.type} at ${timeText(current.at)}`
                          : ''
                      }
                      onChange={(e) => send({ type: 'user.moveSlider', index: Number(e.target.value) })}
                    />
                    {current && (
                      <p className="hint" data-testid="maint-moment">
                        After event {context.index + 1} of {context.events.length}: <strong>{current.type}</strong> at{' '}
                        {timeText(current.at)} (position {current.position})
                      </p>
                    )}
                  </div>
                  {state.matches({ ready: { user: { history: { moment: 'failed' } } } }) ? (
                    <Failed
                      message={context.stateError ?? 'The state could not be read'}
                      onRetry={() => send({ type: 'user.retryState' })}
                    />
                  ) : context.state === null ? (
                    <Skeleton lines={4} />
                  ) : (
                    <div
                      className="cards maint-state"
                      aria-busy={!state.matches({ ready: { user: { history: { moment: 'shown' } } } })}
                    >
                      {stateCards(context.state).map((card) => (
                        <article
                          key={card.concern}
                          className={`card maint-state-card${card.empty ? ' empty-state' : ''}`}
                        >
                          <h4>{card.label}</h4>
                          {card.empty ? (
                            <p className="hint">Nothing yet</p>
                          ) : (
                            <JsonTree value={card.value} label={`${card.label} state`} />
                          )}
                        </article>
                      ))}
                    </div>
                  )}
                </>
              )}
            </>
          )}
        </>
      )}
    </section>
  );
}
