/**
 * The condition builder: source chips (price, SMA, EMA, RSI, volume, change %), the operator, then the fields the
 * operator uses (a level as a number or another series; a channel's lower and upper; an amount over bars), the
 * frequency, the expiry, the note and the channels it is delivered to. It checks the draft against the contract as
 * the user types and marks the field a refusal names (its own, or the server's through `problem`). A level shows
 * what the draft holds and sends (see `levelView`). Used by the alert manager and the price chart.
 */
import { useMachine } from '@xstate/react';
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { ALERT_FREQUENCIES, FREQUENCY_TEXT, type AlertSource } from '../../domain/alerts/conditions.ts';
import { zoneLabel } from '../services/time.ts';
import {
  OPS,
  OP_LABELS,
  draftProblem,
  levelUnit,
  levelView,
  movingLabel,
  problemText,
  opFields,
  requestOf,
  sourceChipsOf,
  withSource,
  type AlertBody,
  type ConditionDraft,
  type FieldProblem,
  type OperandDraft,
} from './conditionDraft.ts';
import { channelListMachine } from './channelList.machine.ts';
import { channelLabel } from './channelWords.ts';
import { Link } from './Link.tsx';
import { SymbolSearch } from './SymbolSearch.tsx';
import './ConditionBuilder.css';

/** Props of the builder. */
export interface ConditionBuilderProps {
  /** The draft to start from (the builder keeps its own copy while the user types). */
  readonly initial: ConditionDraft;
  /** The id of the alert being changed, if any. */
  readonly id?: string;
  /** A refusal to show (the server's), naming its field. */
  readonly problem?: FieldProblem | null;
  readonly busy?: boolean;
  readonly submitLabel: string;
  readonly onSubmit: (body: AlertBody) => void;
  readonly onCancel?: () => void;
  /** Whether the symbol may be typed or searched by company name (a new alert of the manager); else the draft's. */
  readonly symbolField?: boolean;
  /** Extra content at the top. */
  readonly children?: ReactNode;
}

/** A labelled select of one of a few choices (an operator, a frequency). */
export function ChoiceSelect<T extends string>(props: {
  readonly label: string;
  readonly value: T;
  readonly choices: readonly T[];
  readonly labelOf: (choice: T) => string;
  readonly onChange: (choice: T) => void;
  readonly invalid?: boolean;
  readonly autoFocus?: boolean;
}) {
  return (
    <label>
      {props.label}
      <select
        aria-invalid={props.invalid === true}
        autoFocus={props.autoFocus}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value as T)}
      >
        {props.choices.map((choice) => (
          <option key={choice} value={choice}>
            {props.labelOf(choice)}
          </option>
        ))}
      </select>
    </label>
  );
}

function Operand(props: {
  readonly label: string;
  readonly field: string;
  readonly value: OperandDraft;
  readonly source: AlertSource;
  /** Series offered besides the usual ones (those of the alert being changed). */
  readonly also: readonly AlertSource[];
  readonly invalid: boolean;
  readonly onChange: (value: OperandDraft) => void;
}) {
  const { label, field, value, source, also, invalid, onChange } = props;
  // RSI, volume and the day's change take numbers only; a series chosen before is kept in the draft, not sent.
  const view = levelView(value, source, also);
  return (
    <fieldset className="cb-operand" data-field={field}>
      <legend>{label}</legend>
      <select
        aria-label={`${label}: a number or a series`}
        hidden={!view.select}
        value={view.selected}
        onChange={(e) =>
          onChange(
            e.target.value === 'number'
              ? { ...value, kind: 'number' }
              : { ...value, kind: 'series', series: e.target.value as AlertSource },
          )
        }
      >
        {view.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {view.numberBox && (
        <input
          aria-label={label}
          aria-invalid={invalid}
          inputMode="decimal"
          size={10}
          placeholder={levelUnit(source)}
          value={value.number}
          onChange={(e) => onChange({ ...value, number: e.target.value })}
        />
      )}
    </fieldset>
  );
}

/**
 * "Deliver to": every channel of the user (null), or the ones ticked. Unticking "Every channel" starts from all of
 * them ticked, to untick the ones not wanted.
 */
function DeliverTo(props: {
  readonly chosen: readonly string[] | null;
  readonly invalid: boolean;
  readonly onChange: (chosen: readonly string[] | null) => void;
}) {
  const { chosen, invalid, onChange } = props;
  const [state, send] = useMachine(channelListMachine);
  const { channels, error } = state.context;
  const every = chosen === null;
  return (
    <fieldset className="cb-channels" data-field="channels" aria-invalid={invalid}>
      <legend>Deliver to (besides the bell)</legend>
      {state.matches('loading') && <span className="cb-muted">Loading your channels…</span>}
      {state.matches('failed') && (
        <span className="cb-muted">
          Your channels could not be loaded ({error}).{' '}
          <button type="button" className="button" onClick={() => send({ type: 'user.retry' })}>
            Retry
          </button>
        </span>
      )}
      {state.matches('ready') && channels.length === 0 && (
        <span className="cb-muted">
          The bell only: add e-mail, Web Push or a webhook in <Link to="/Settings">Settings</Link>.
        </span>
      )}
      {state.matches('ready') && channels.length > 0 && (
        <>
          <label className="cb-check">
            <input
              type="checkbox"
              checked={every}
              onChange={(e) => onChange(e.target.checked ? null : channels.map((c) => c.id))}
            />
            Every channel
          </label>
          {channels.map((channel) => (
            <label key={channel.id} className="cb-check">
              <input
                type="checkbox"
                disabled={every}
                checked={every || chosen.includes(channel.id)}
                onChange={(e) =>
                  onChange(
                    e.target.checked
                      ? channels.filter((c) => c.id === channel.id || chosen?.includes(c.id)).map((c) => c.id)
                      : (chosen ?? []).filter((id) => id !== channel.id),
                  )
                }
              />
              {channelLabel(channel)}
            </label>
          ))}
        </>
      )}
    </fieldset>
  );
}

/** The builder. */
export function ConditionBuilder(props: ConditionBuilderProps) {
  const { id, busy = false, submitLabel, onSubmit, onCancel } = props;
  const [draft, setDraft] = useState(props.initial);
  const [tried, setTried] = useState(false);
  /** The company of the symbol picked in the search (none while typed). */
  const [company, setCompany] = useState<string | null>(null);
  const ids = useId();
  const local = draftProblem(draft, id);
  // The form's own refusal once the user tried to send; the server's until the draft changes.
  const [serverProblem, setServerProblem] = useState(props.problem ?? null);
  const [lastProblem, setLastProblem] = useState(props.problem ?? null);
  if ((props.problem ?? null) !== lastProblem) {
    setLastProblem(props.problem ?? null);
    setServerProblem(props.problem ?? null);
  }
  const shown = (tried ? local : null) ?? serverProblem;
  const invalid = (field: string) => shown !== null && (shown.field === field || shown.field.startsWith(`${field}.`));
  const change = (patch: Partial<ConditionDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setServerProblem(null);
  };
  const changeSource = (source: AlertSource) => {
    setDraft((d) => withSource(d, source));
    setServerProblem(null);
  };
  // The series the alert being changed refers to stay offered, to go back to one after trying another.
  const { initial } = props;
  const also = (operand: OperandDraft): readonly AlertSource[] => (operand.kind === 'series' ? [operand.series] : []);
  const fields = opFields(draft.op);
  const isEma = draft.source.startsWith('ema:');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (local === null) onSubmit(requestOf(draft, id));
  };

  return (
    <form className="condition-builder" aria-label="Condition" onSubmit={submit} noValidate>
      {props.children}
      {props.symbolField === true && (
        <div className="cb-row cb-symbol">
          <SymbolSearch
            label="Symbol"
            placeholder="Symbol or company name"
            invalid={invalid('symbol')}
            onType={(text) => {
              setCompany(null);
              change({ symbol: text.trim().toUpperCase() });
            }}
            onPick={(hit) => {
              setCompany(hit.name);
              change({ symbol: hit.symbol });
            }}
          />
          {company !== null && <span className="cb-company">{company}</span>}
        </div>
      )}
      <div role="group" aria-label="Source" className="cb-chips">
        {sourceChipsOf(draft.source).map((chip) => (
          <button
            key={chip.source}
            type="button"
            className="cb-chip"
            aria-pressed={chip.pressed}
            onClick={() => changeSource(chip.source)}
          >
            {chip.label}
          </button>
        ))}
        {isEma && (
          <label className="cb-inline">
            EMA period
            <input
              aria-invalid={invalid('condition.source')}
              inputMode="numeric"
              size={4}
              value={draft.source.slice(4)}
              onChange={(e) => changeSource(`ema:${e.target.value.trim()}` as AlertSource)}
            />
          </label>
        )}
      </div>
      <div className="cb-row">
        <ChoiceSelect
          label="Operator"
          value={draft.op}
          choices={OPS}
          labelOf={(op) => OP_LABELS[op]}
          invalid={invalid('condition.op')}
          onChange={(op) => change({ op })}
        />
        {fields === 'level' && (
          <Operand
            label="Level"
            field="condition.value"
            value={draft.value}
            source={draft.source}
            also={also(initial.value)}
            invalid={invalid('condition.value')}
            onChange={(value) => change({ value })}
          />
        )}
        {fields === 'channel' && (
          <>
            <Operand
              label="Lower"
              field="condition.lower"
              value={draft.lower}
              source={draft.source}
              also={also(initial.lower)}
              invalid={invalid('condition.lower')}
              onChange={(lower) => change({ lower })}
            />
            <Operand
              label="Upper"
              field="condition.upper"
              value={draft.upper}
              source={draft.source}
              also={also(initial.upper)}
              invalid={invalid('condition.upper')}
              onChange={(upper) => change({ upper })}
            />
          </>
        )}
        {fields === 'moving' && (
          <>
            <label>
              {movingLabel(draft.op, draft.source)}
              <input
                aria-invalid={invalid('condition.value')}
                inputMode="decimal"
                size={8}
                value={draft.value.number}
                onChange={(e) => change({ value: { ...draft.value, kind: 'number', number: e.target.value } })}
              />
            </label>
            <label>
              Bars
              <input
                aria-invalid={invalid('condition.bars')}
                inputMode="numeric"
                size={4}
                value={draft.bars}
                onChange={(e) => change({ bars: e.target.value })}
              />
            </label>
          </>
        )}
      </div>
      <div className="cb-row">
        <ChoiceSelect
          label="Frequency"
          value={draft.frequency}
          choices={ALERT_FREQUENCIES}
          labelOf={(f) => FREQUENCY_TEXT[f]}
          invalid={invalid('frequency')}
          onChange={(frequency) => change({ frequency })}
        />
        <label htmlFor={`${ids}-expires`}>
          Expires ({zoneLabel()}, empty: never)
          <input
            id={`${ids}-expires`}
            type="datetime-local"
            aria-invalid={invalid('expires')}
            value={draft.expires}
            onChange={(e) => change({ expires: e.target.value })}
          />
        </label>
      </div>
      <div className="cb-row">
        <label htmlFor={`${ids}-note`} className="cb-note">
          Note (shown with each firing)
          <input
            id={`${ids}-note`}
            type="text"
            placeholder="e.g. take half off, stop at the 50-day"
            aria-invalid={invalid('note')}
            value={draft.note}
            onChange={(e) => change({ note: e.target.value })}
          />
        </label>
      </div>
      <DeliverTo chosen={draft.channels} invalid={invalid('channels')} onChange={(channels) => change({ channels })} />
      {shown && (
        <p className="error" role="alert" data-field={shown.field}>
          {problemText(shown, draft.op, draft.source)}
        </p>
      )}
      <div className="cb-row">
        <button type="submit" className="button primary" disabled={busy}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
