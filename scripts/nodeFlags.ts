/**
 * The Node.js flags the server runs with: `npm start` passes them (package.json), and the benchmarks start
 * their server children with them, and run with them themselves (`npm run bench`: the engine benchmarks
 * evaluate ticks in the benchmark's own process), so what they measure is what runs.
 *
 * `--max-semi-space-size=64`: each half of the young generation may grow to 64 MB (V8's default is 16 MB on
 * this machine). The server allocates fast (5,000 ticks a second parsed, quotes and notifications serialised),
 * and with a small young generation much of that survives two scavenges only because it was still in flight,
 * is promoted, and fills the old generation; with 100,000 alerts armed the old generation holds several hundred
 * MB, and each major collection marking it took 300 ms of the event loop in pieces, the notifications of that
 * moment waiting behind them. With the larger young generation `npm run bench -- latency` saw 4 collections in
 * 6 s instead of 20, and the notification p99 with 100,000 mixed alerts armed fell from 70–350 ms to 7 ms
 * (README, Benchmarks). It costs up to 3 × 64 MB of memory reserved for the young generation.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
