/**
 * Who hears of an engine's triggers: each durable trigger is reported once (two engines racing on one alert may
 * both report it: the event id tells them apart) to every listener. A trigger reported while nothing listens
 * yet is held and handed to the first listener: a restarted engine fires on the ticks it missed as soon as it
 * reads the bus, which may be before its relay (or a gateway's fan-out) listens, and those pushes would be lost.
 */
import type { EngineTrigger } from './alerts/alertEngine.ts';

/** A listener of triggers. */
export type TriggerListener = (trigger: EngineTrigger) => void;

/** How many reports are remembered, and how many held, at most (the oldest go first). */
export interface TriggerReportLimits {
  /** Event ids remembered to report each once. */
  readonly remembered: number;
  /** Triggers held while nothing listens. */
  readonly held: number;
}

/** Reports triggers to listeners; see the module comment. */
export class TriggerReports {
  private readonly listeners = new Set<TriggerListener>();
  private readonly reported = new Set<string>();
  private held: EngineTrigger[] = [];

  constructor(
    private readonly limits: TriggerReportLimits,
    /** A listener that threw (the others still hear of the trigger). */
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Reports a trigger to every listener, once per event id; held when nothing listens. */
  report(trigger: EngineTrigger): void {
    if (this.reported.has(trigger.eventId)) return;
    this.reported.add(trigger.eventId);
    if (this.reported.size > this.limits.remembered) this.reported.delete(this.reported.values().next().value!);
    if (this.listeners.size === 0) {
      this.held.push(trigger);
      if (this.held.length > this.limits.held) this.held.shift();
      return;
    }
    for (const listener of this.listeners) this.tell(listener, trigger);
  }

  /** Adds a listener (the first one first hears of the triggers held, oldest first); answers the removal. */
  listen(listener: TriggerListener): () => void {
    this.listeners.add(listener);
    const held = this.held;
    this.held = [];
    for (const trigger of held) this.tell(listener, trigger);
    return () => this.listeners.delete(listener);
  }

  private tell(listener: TriggerListener, trigger: EngineTrigger): void {
    try {
      listener(trigger);
    } catch (error) {
      this.onError(error);
    }
  }
}
