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
 *
 * Neither neighbour did better (`npm run bench -- latency` with 100,000 mixed alerts armed, two or three runs each
 * on one quiet day). A scavenge's pause grew with the young generation's size, so the collections' total stayed
 * about the same and only its cut changed: 32 MB, 8 or 9 collections in 6.2 s (60 ms in all), notification p99
 * 13.76 and 13.88 ms; 128 MB, 2 of about 20 to 30 ms (40 to 60 ms in all), p99 9.16, 17.07 and 410 ms (a stall
 * of 400 ms amid a burst of background triggers); 64 MB, 4 of about 10 ms or less (30 to 40 ms in all), p99
 * 9.39, 12.14 and 9.13 ms.
 *
 * Nor did scavenging on the main thread alone, which this 2-core machine might have favoured (one run each, the
 * default's p99 that day 26.1 ms): `--no-parallel-scavenge`, each scavenge in the measured window 12 to 22 ms
 * against 9 to 10 ms with helpers (`BENCH_TRACE_GC=1`), p99 21.78 ms; `--single-threaded-gc`, which also takes
 * the major collections' marking onto the main thread, p99 35.92 ms.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
