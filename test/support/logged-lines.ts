import { vi } from 'vitest';

/**
 * The JSON lines the function's logger writes to stdout and stderr while `action` runs, parsed;
 * nothing reaches the terminal meanwhile.
 */
export function loggedLinesOf(action: () => void): Record<string, unknown>[] {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation(capture),
    vi.spyOn(process.stderr, 'write').mockImplementation(capture),
  ];
  try {
    action();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
