/** The short messages of {@link showToast}, announced to screen readers. */
import { useToasts } from '../services/toast.ts';

/** The toast stack. */
export function Toasts() {
  const toasts = useToasts();
  return (
    <div className="toasts" role="status" aria-live="polite">
      {toasts.map((toast) => (
        <div key={toast.id} className={`toast ${toast.tone}`}>
          {toast.text}
        </div>
      ))}
    </div>
  );
}
