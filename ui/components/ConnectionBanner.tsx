/** The banner shown while live updates are disconnected, and briefly when they resume. */
export function ConnectionBanner({ status }: { readonly status: 'live' | 'disconnected' | 'resumed' | 'connecting' }) {
  if (status === 'disconnected') {
    return (
      <div className="banner warn" role="status" data-testid="connection-banner">
        Live updates are disconnected: reconnecting… Prices and alerts shown may be out of date.
      </div>
    );
  }
  if (status === 'resumed') {
    return (
      <div className="banner ok" role="status" data-testid="connection-banner">
        Live updates resumed.
      </div>
    );
  }
  return null;
}
