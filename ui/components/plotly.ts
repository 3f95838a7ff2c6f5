/**
 * The app's Plotly: the core (with the scatter trace) and exactly the traces the app draws. Loaded only by
 * {@link Chart} when a screen first draws a chart, so it is a chunk of its own.
 */
import Plotly from 'plotly.js-core/lib/core';
import bar from 'plotly.js-core/lib/bar';
import candlestick from 'plotly.js-core/lib/candlestick';
import heatmap from 'plotly.js-core/lib/heatmap';
import pie from 'plotly.js-core/lib/pie';
import treemap from 'plotly.js-core/lib/treemap';

Plotly.register([bar, candlestick, pie, heatmap, treemap]);

export default Plotly;
