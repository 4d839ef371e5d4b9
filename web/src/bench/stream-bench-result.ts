/** What the streaming benchmark page reports back to bench/web/run.ts. */
export interface StreamBenchResult {
  readonly tokens: number;
  readonly bytes: number;
  /** Synchronous render + commit + style/layout per token, in ms, in arrival order. */
  readonly perTokenMs: number[];
  /** Durations of long tasks (> 50 ms) observed while streaming. */
  readonly longTasksMs: number[];
  readonly renderedTextLength: number;
}
