/**
 * The dashboard options of the spec: the "add stocks" card, the sub-header, card details and actions, and the
 * slider of the charts' period (1 to 60 months, 3 by default). Each change is saved at once.
 */
import { useState } from 'react';
import type { DashboardOptions } from './dashboard.logic.ts';
import { sliderMonths } from './dashboard.logic.ts';
import { Dashboard } from './dashboardActor.ts';

/** Months the slider spans, at least and at most. */
export const SLIDER_RANGE = { min: 1, max: 60 } as const;

function monthsText(months: number): string {
  return months === 1 ? '1 month' : `${months} months`;
}

/** The options panel. */
export function OptionsPanel({ id, onClose }: { readonly id: string; readonly onClose: () => void }) {
  const actor = Dashboard.useActorRef();
  const options = Dashboard.useSelector((s) => s.context.options);
  const saving = Dashboard.useSelector((s) => s.matches({ settings: { ready: { options: 'saving' } } }));
  const loading = Dashboard.useSelector((s) => s.matches({ settings: 'loading' }));
  const months = sliderMonths(options.slider);
  // The slider's position while it is dragged; committed (and saved) when released.
  const [draft, setDraft] = useState<number | null>(null);
  const shown = draft ?? months;
  const change = (changes: Partial<DashboardOptions>) => actor.send({ type: 'user.changeOptions', changes });
  const commit = () => {
    if (draft !== null && draft !== months) change({ slider: { type: 'M', val: draft } });
    setDraft(null);
  };
  return (
    <form
      className="card dash-options"
      id={id}
      aria-label="Dashboard options"
      onSubmit={(event) => event.preventDefault()}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onClose();
      }}
    >
      <fieldset disabled={loading}>
        <legend>Options {saving && <span className="hint">saving…</span>}</legend>
        <label className="check">
          <input type="checkbox" checked={options.addstks} onChange={(e) => change({ addstks: e.target.checked })} />
          Show the “Add stocks” card
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={options.showcarddetail}
            onChange={(e) => change({ showcarddetail: e.target.checked })}
          />
          Show card details (SMA, chart, company info)
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={options.showcardactions}
            onChange={(e) => change({ showcardactions: e.target.checked })}
          />
          Show card actions
        </label>
        <label>
          Sub-header
          <select
            value={options.subheader}
            onChange={(e) => change({ subheader: e.target.value === 'detailed' ? 'detailed' : 'basic' })}
          >
            <option value="basic">Basic</option>
            <option value="detailed">Detailed (today’s breadth)</option>
          </select>
        </label>
        <label className="dash-slider">
          <span>
            Chart period: <output>{monthsText(shown)}</output>
          </span>
          <input
            type="range"
            min={SLIDER_RANGE.min}
            max={SLIDER_RANGE.max}
            step={1}
            value={shown}
            aria-valuetext={monthsText(shown)}
            onChange={(e) => setDraft(Number(e.target.value))}
            onPointerUp={commit}
            onKeyUp={commit}
            onBlur={commit}
          />
        </label>
      </fieldset>
      <button type="button" className="button" onClick={onClose}>
        Close
      </button>
    </form>
  );
}
