import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The run's longest files, started first so that none of them is the run's tail: `npm start`'s
 * signals and the longest browser file, which mostly wait, beside the CDK files, which compute
 * (ADR 0016 has the figures). The longest of all, the 20-writer stress test, has a group of its
 * own (vitest.config.ts), where it comes before the unit files. A path no longer in the suite is
 * skipped.
 */
const startFirst = ['test/local/npm-start-signals.test.ts', 'test/browser/chat-app.test.ts'];

/**
 * After those, the CDK files (CPU-bound, up to half a minute each: at the end they were the run's
 * tail), then the integration files with the browser files among them. The unit files, the
 * shortest, come last in whatever group they are in (today the first, after the stress test).
 */
const beforeIntegration = 'cdk';
const afterIntegration = 'unit';

/**
 * The order vitest hands files to its workers (`sequence.sequencer`). Its own order runs the
 * projects one after another, and once put the ten browser files first, alone on all workers: a
 * browser test mostly waits on what a person would see, so two cores sat half idle for three
 * minutes. Here the browser files (`test/browser`, in the integration project) are spread among
 * the other integration files, a few at a time beside CPU-bound work, and the CDK files come
 * before them (a shared worker is ended by a file of another project, and a new one pays the
 * import of aws-cdk-lib again).
 *
 * Within a project the files keep vitest's order (longer first by the last run's durations,
 * larger first without them), and each project's files stay together: a worker that shares its
 * process between files is kept only while the next file is of the same project.
 */
export default class FileOrder extends BaseSequencer {
  // Vitest calls this once per group (`sequence.groupOrder`), with that group's files.
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = sorted[0]?.project.config.root ?? process.cwd();
    const path = (spec: TestSpecification) => relative(root, spec.moduleId);
    const first = startFirst.flatMap((wanted) => sorted.filter((spec) => path(spec) === wanted));
    const rest = sorted.filter((spec) => !first.includes(spec));
    const inProject = (name: string) => rest.filter((spec) => spec.project.name === name);
    const placedProjects = [beforeIntegration, afterIntegration];
    const isBrowserFile = (spec: TestSpecification) => path(spec).startsWith('test/browser/');
    // The integration files (the browser files among them), and those of any project added later.
    const middle = rest.filter((spec) => !placedProjects.includes(spec.project.name));
    return [
      ...first,
      ...inProject(beforeIntegration),
      ...spreadAmong(
        middle.filter((spec) => !isBrowserFile(spec)),
        middle.filter(isBrowserFile),
      ),
      ...inProject(afterIntegration),
    ];
  }
}

/** `spread` placed at even intervals through `files`, the first after one interval. */
function spreadAmong(
  files: readonly TestSpecification[],
  spread: readonly TestSpecification[],
): TestSpecification[] {
  const interval = files.length / (spread.length + 1);
  const result = [...files];
  // From the back, so the positions still to fill do not move.
  for (const [index, spec] of [...spread.entries()].reverse()) {
    result.splice(Math.round(interval * (index + 1)), 0, spec);
  }
  return result;
}
