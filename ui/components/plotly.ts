/**
 * The app's Plotly: the core (with the scatter trace) and exactly the traces the app draws. Loaded only by
 * {@link Chart} when a screen first draws a chart, so it is a chunk of its own.
 */
import Plotly from 'plotly.js-core/lib/core.js';
import bar from 'plotly.js-core/lib/bar.js';
import candlestick from 'plotly.js-core/lib/candlestick.js';
import heatmap from 'plotly.js-core/lib/heatmap.js';
import pie from 'plotly.js-core/lib/pie.js';
import treemap from 'plotly.js-core/lib/treemap.js';

Plotly.register([bar, candlestick, pie, heatmap, treemap]);

export default Plotly;
