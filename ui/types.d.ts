/** The Plotly finance bundle has no types of its own: it is the plotly.js API. */
declare module 'plotly.js-finance-dist-min' {
  import Plotly from 'plotly.js';
  export default Plotly;
}
