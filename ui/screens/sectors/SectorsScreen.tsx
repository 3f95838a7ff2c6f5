/**
 * The Sectors page (/SectorSetUp): a card per user-defined sector (name, symbol chips, rename, add symbols
 * through a universe search, remove a symbol, delete), a "new sector" card, and the universe's 11 GICS
 * sectors offered as ready-made ones to copy.
 */
import { useMachine } from '@xstate/react';
import { useId, useState, type FormEvent } from 'react';
import { ConfirmBar } from '../../components/ConfirmBar.tsx';
import { Dismissible, Failed, Skeleton } from '../../components/LoadState.tsx';
import { plural } from '../../components/plural.ts';
import { StrokeIcon } from '../../components/StrokeIcon.tsx';
import { usePreferences } from '../../services/preferences.ts';
import { formatDate } from '../../services/time.ts';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import {
  SECTOR_NAME_MAX,
  changeTarget,
  isCopied,
  suggestions,
  type GicsSector,
  type NewSectorDraft,
  type UserSector,
} from './sectors.logic.ts';
import { sectorsMachine, type SectorSearch, type SectorsEvent } from './sectors.machine.ts';
import './sectors.css';

/** How many symbols a GICS card previews. */
const GICS_PREVIEW = 6;

interface CardProps {
  readonly sector: UserSector;
  readonly busy: boolean;
  readonly search: SectorSearch;
  readonly searching: boolean;
  readonly send: (event: SectorsEvent) => void;
}

function SectorCard({ sector, busy, search, searching, send }: CardProps) {
  const [renaming, setRenaming] = useState(false);
  const [newName, setNewName] = useState(sector.name);
  const { timeZone } = usePreferences();
  const [confirming, setConfirming] = useState(false);
  const [text, setText] = useState('');
  const id = useId();
  const mine = search.sectorId === sector.id;
  const offered = mine ? suggestions(search.results, sector) : [];

  const rename = (event: FormEvent) => {
    event.preventDefault();
    send({ type: 'user.rename', id: sector.id, name: newName });
    setRenaming(false);
  };
  const add = (symbols: string) => {
    send({ type: 'user.addSymbols', id: sector.id, symbols });
    setText('');
    send({ type: 'user.closeSearch' });
  };
  const submitAdd = (event: FormEvent) => {
    event.preventDefault();
    const exact = offered.find((o) => o.symbol === text.trim().toUpperCase());
    add(exact ? exact.symbol : text);
  };
  const typed = (value: string) => {
    setText(value);
    send({ type: 'user.search', sectorId: sector.id, text: value });
  };

  return (
    <article className="card sector-card" aria-labelledby={`${id}-name`} aria-busy={busy}>
      <header className="sector-card-header">
        {renaming ? (
          <form className="sector-rename" onSubmit={rename}>
            <label className="sr-only" htmlFor={`${id}-rename`}>
              New name for {sector.name}
            </label>
            <input
              id={`${id}-rename`}
              value={newName}
              maxLength={SECTOR_NAME_MAX}
              autoFocus
              onChange={(e) => setNewName(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Escape') setRenaming(false);
              }}
            />
            <button type="submit" className="button primary small">
              Save
            </button>
            <button type="button" className="button small" onClick={() => setRenaming(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <>
            <h2 id={`${id}-name`}>{sector.name}</h2>
            <div className="sector-actions">
              <button
                type="button"
                className="icon-button small"
                aria-label={`Rename ${sector.name}`}
                title="Rename"
                onClick={() => {
                  setNewName(sector.name);
                  setRenaming(true);
                }}
              >
                ✎
              </button>
              <button
                type="button"
                className="icon-button small"
                aria-label={`Delete ${sector.name}`}
                title="Delete"
                onClick={() => setConfirming(true)}
              >
                <StrokeIcon size={14}>
                  <path d="M3 6h18M8 6V4h8v2M6 6l1 14h10l1-14" />
                </StrokeIcon>
              </button>
            </div>
          </>
        )}
      </header>
      {confirming && (
        <ConfirmBar
          title={`Delete ${sector.name}?`}
          question={`Delete ${sector.name} and its ${plural(sector.symbols.length, 'symbol')}?`}
          confirm="Delete"
          onConfirm={() => {
            setConfirming(false);
            send({ type: 'user.delete', id: sector.id });
          }}
          onKeep={() => setConfirming(false)}
        />
      )}
      {sector.symbols.length === 0 ? (
        <p className="empty">No symbols yet: search the universe below to add some.</p>
      ) : (
        <ul className="sector-symbols" aria-label={`Symbols of ${sector.name}`}>
          {sector.symbols.map((symbol) => (
            <li key={symbol} className="sector-symbol">
              <SymbolChip symbol={symbol} />
              <button
                type="button"
                className="icon-button small"
                aria-label={`Remove ${symbol} from ${sector.name}`}
                title="Remove"
                onClick={() => send({ type: 'user.removeSymbol', id: sector.id, symbol })}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="sector-add" onSubmit={submitAdd}>
        <label htmlFor={`${id}-add`}>Add symbols to {sector.name}</label>
        <div className="sector-add-row">
          <input
            id={`${id}-add`}
            value={text}
            placeholder="AAPL, MSFT or a company"
            autoComplete="off"
            onChange={(e) => typed(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') typed('');
            }}
          />
          <button type="submit" className="button small" disabled={text.trim().length === 0}>
            Add
          </button>
        </div>
        {mine && searching && <Skeleton lines={2} height={14} />}
        {mine && search.error && <p className="error">{search.error}</p>}
        {mine && !searching && !search.error && text.trim().length > 0 && (
          <ul className="sector-suggestions" aria-label={`Universe matches for ${sector.name}`}>
            {offered.length === 0 ? (
              <li className="hint">No company of the universe matches “{text.trim()}” that is not already here.</li>
            ) : (
              offered.map((o) => (
                <li key={o.symbol}>
                  <button type="button" className="suggestion" onClick={() => add(o.symbol)}>
                    <strong>{o.symbol}</strong> <span>{o.name}</span> <span className="hint">{o.sector}</span>
                  </button>
                </li>
              ))
            )}
          </ul>
        )}
      </form>
      <footer className="hint">
        {plural(sector.symbols.length, 'symbol')} · created {formatDate(sector.createdt, timeZone)}
        {busy ? ' · saving…' : ''}
      </footer>
    </article>
  );
}

function NewSectorCard(props: { readonly draft: NewSectorDraft; readonly send: (event: SectorsEvent) => void }) {
  const { draft, send } = props;
  const { name, symbols } = draft;
  const id = useId();
  const create = (event: FormEvent) => {
    event.preventDefault();
    // The machine keeps what was typed until the sector is created, so a refusal loses nothing.
    send({ type: 'user.create', name, symbols });
  };
  return (
    <article className="card sector-card new-sector" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>New sector</h2>
      <form onSubmit={create} className="new-sector-form">
        <label>
          Sector name
          <input
            value={name}
            maxLength={SECTOR_NAME_MAX}
            onChange={(e) => send({ type: 'user.editDraft', name: e.target.value })}
          />
        </label>
        <label>
          Symbols (optional)
          <input
            value={symbols}
            placeholder="NVDA, AMD, AVGO"
            onChange={(e) => send({ type: 'user.editDraft', symbols: e.target.value })}
          />
        </label>
        <button type="submit" className="button primary" disabled={name.trim().length === 0}>
          Create sector
        </button>
      </form>
    </article>
  );
}

function GicsCards({
  gics,
  sectors,
  send,
}: {
  readonly gics: readonly GicsSector[];
  readonly sectors: readonly UserSector[];
  readonly send: (event: SectorsEvent) => void;
}) {
  return (
    <ul className="gics-list" aria-label="GICS sectors">
      {gics.map((g) => {
        const copied = isCopied(sectors, g.sector);
        return (
          <li key={g.sector} className="card gics-card">
            <div>
              <strong>{g.sector}</strong>
              <p className="hint">
                {plural(g.symbols.length, 'symbol')}: {g.symbols.slice(0, GICS_PREVIEW).join(', ')}
                {g.symbols.length > GICS_PREVIEW ? ', …' : ''}
              </p>
            </div>
            <button
              type="button"
              className="button small"
              disabled={copied}
              aria-label={copied ? `${g.sector} is in your sectors` : `Copy ${g.sector}`}
              onClick={() => send({ type: 'user.copy', gics: g.sector })}
            >
              {copied ? 'Copied' : 'Copy'}
            </button>
          </li>
        );
      })}
    </ul>
  );
}

/** The Sectors page. */
export default function SectorsScreen() {
  const [state, send] = useMachine(sectorsMachine);
  const ctx = state.context;
  const saving = state.matches({ data: 'saving' });
  const busyId = saving && ctx.queue[0] ? changeTarget(ctx.queue[0]) : null;
  const searching = state.matches({ search: 'debouncing' }) || state.matches({ search: 'searching' });

  if (state.matches({ data: 'loading' })) {
    return (
      <section className="screen sectors-screen">
        <h1>Sectors</h1>
        <Skeleton lines={8} height={24} />
      </section>
    );
  }
  if (state.matches({ data: 'failed' })) {
    return (
      <section className="screen sectors-screen">
        <h1>Sectors</h1>
        <Failed
          message={ctx.error ?? 'Your sectors could not be loaded'}
          onRetry={() => send({ type: 'user.retry' })}
        />
      </section>
    );
  }
  return (
    <section className="screen sectors-screen">
      <div className="sectors-header">
        <h1>Sectors</h1>
        <p className="hint" aria-live="polite">
          {ctx.queue.length > 0 ? `Saving ${ctx.queue.length} change${ctx.queue.length > 1 ? 's' : ''}…` : ''}
        </p>
      </div>
      {ctx.actionError && (
        <Dismissible message={ctx.actionError} small onDismiss={() => send({ type: 'user.dismissError' })} />
      )}
      <h2 className="sectors-section">Your sectors</h2>
      {ctx.sectors.length === 0 && (
        <p className="empty">You have no sectors yet: create one below, or copy one of the GICS sectors.</p>
      )}
      <div className="cards sector-cards">
        {ctx.sectors.map((sector) => (
          <SectorCard
            key={sector.id}
            sector={sector}
            busy={busyId === sector.id}
            search={ctx.search}
            searching={searching}
            send={send}
          />
        ))}
        <NewSectorCard draft={ctx.draft} send={send} />
      </div>
      <h2 className="sectors-section">Ready-made GICS sectors</h2>
      <p className="hint">Copy one to start from the universe&apos;s companies of that sector, largest first.</p>
      <GicsCards gics={ctx.gics} sectors={ctx.sectors} send={send} />
    </section>
  );
}
