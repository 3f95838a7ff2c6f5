/** Plotly's source modules have no types of their own: the core is the plotly.js API with `register`. */
declare module 'plotly.js-core/lib/core.js' {
  import type Plotly from 'plotly.js';
  const core: typeof Plotly & { register(modules: readonly unknown[]): void };
  export default core;
}

/** A trace module of Plotly's source, for the core's `register`. */
declare module 'plotly.js-core/lib/*' {
  const trace: { readonly moduleType: 'trace'; readonly name: string };
  export default trace;
}
