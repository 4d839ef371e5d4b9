import { readdirSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** What one process spent during a measured window. */
export interface ProcessStats {
  /**
   * User + system CPU time of the process, ms (`process.cpuUsage`), plus that of the descendant
   * processes `startProcessStats` was asked to count (the function's execution environments).
   */
  readonly cpuMs: number;
  /** The descendants' share of `cpuMs`, when they were counted. */
  readonly descendantCpuMs?: number;
  /** p99 event-loop delay, ms: how long a ready callback waited for the loop. */
  readonly eventLoopP99Ms: number;
  /** Wall time of the window, ms. */
  readonly wallMs: number;
}

/**
 * The histogram's timer period, ms. Each sample still measures the delay exactly; a 1 ms period
 * cost 26 ms of CPU per second on this machine (≈ 0.5 ms per fragment at 1 stream, in every
 * process), 10 ms about 6 ms per second.
 */
const SAMPLE_EVERY_MS = 10;

export interface ProcessStatsOptions {
  /**
   * Also count the CPU time of this process's descendants whose command name passes (Linux
   * `/proc`): the function process runs its handler in execution-environment processes (the
   * real runtime client), whose work `process.cpuUsage` does not see. A descendant that exits
   * inside the window loses its share; the environments here live for the whole run.
   */
  readonly descendants?: (command: string) => boolean;
}

/**
 * Starts counting this process's CPU time and event-loop delay; `stop()` returns the figures
 * for the window.
 */
export function startProcessStats(options: ProcessStatsOptions = {}): { stop(): ProcessStats } {
  const loop = monitorEventLoopDelay({ resolution: SAMPLE_EVERY_MS });
  loop.enable();
  const cpuBefore = process.cpuUsage();
  const descendantsBefore = options.descendants
    ? descendantCpuMs(process.pid, options.descendants)
    : undefined;
  const startedAt = performance.now();
  return {
    stop: () => {
      loop.disable();
      const cpu = process.cpuUsage(cpuBefore);
      let descendantMs: number | undefined;
      if (options.descendants && descendantsBefore) {
        descendantMs = 0;
        for (const [pid, ms] of descendantCpuMs(process.pid, options.descendants)) {
          descendantMs += ms - (descendantsBefore.get(pid) ?? 0);
        }
      }
      return {
        cpuMs: (cpu.user + cpu.system) / 1e3 + (descendantMs ?? 0),
        ...(descendantMs === undefined ? {} : { descendantCpuMs: descendantMs }),
        eventLoopP99Ms: loop.percentile(99) / 1e6,
        wallMs: performance.now() - startedAt,
      };
    },
  };
}

/** Clock ticks per second of `/proc/<pid>/stat` times: 100 on Linux (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** CPU ms (user + system) of every descendant of `root` whose command passes `include`. */
function descendantCpuMs(root: number, include: (command: string) => boolean): Map<number, number> {
  const cpu = new Map<number, number>();
  const pending = childrenOf(root);
  while (pending.length > 0) {
    const pid = pending.pop() as number;
    pending.push(...childrenOf(pid));
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command is in parentheses and may hold spaces; fields count from after it.
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the command.
      const ticks = Number(fields[11]) + Number(fields[12]);
      if (include(command)) cpu.set(pid, (ticks * 1000) / TICKS_PER_SECOND);
    } catch {
      // Exited meanwhile.
    }
  }
  return cpu;
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((thread) =>
      readFileSync(`/proc/${pid}/task/${thread}/children`, 'utf8')
        .split(' ')
        .filter(Boolean)
        .map(Number),
    );
  } catch {
    return [];
  }
}

/**
 * `statsStart` / `statsStop` request handlers, so the parent can open and close a measured
 * window in a child process (the child's own CPU and event loop, nobody else's).
 */
export function processStatsHandlers(options: ProcessStatsOptions = {}) {
  let window: { stop(): ProcessStats } | undefined;
  return {
    statsStart: () => {
      window = startProcessStats(options);
      return null;
    },
    statsStop: (): ProcessStats => {
      if (!window) throw new Error('statsStop without statsStart');
      const stats = window.stop();
      window = undefined;
      return stats;
    },
  };
}
