import type { ProgressStep } from '../../../functions/contract/chat-events.js';
import { useI18n } from '../i18n/i18n-context.js';
import type { MessageKey } from '../i18n/messages.js';

const STEPS: readonly { step: ProgressStep; label: MessageKey; onlyWhenReached?: true }[] = [
  { step: 'analyzing', label: 'stepAnalyzing' },
  // Only an inquiry with images has it (ADR 0030).
  { step: 'reading_attachment', label: 'stepReadingAttachment', onlyWhenReached: true },
  { step: 'retrieving', label: 'stepRetrieving' },
  { step: 'fetching', label: 'stepFetching' },
  { step: 'generating', label: 'stepGenerating' },
];

/**
 * What the assistant is doing while staff wait: the server's steps, the latest one current.
 * A skipped step (no ticket references → no fetching) shows as done once a later one starts;
 * reading the attached images shows only for an inquiry that has them.
 */
export function ProgressSteps({ reached }: { reached: readonly ProgressStep[] }) {
  const { t } = useI18n();
  const shown = STEPS.filter((s) => !s.onlyWhenReached || reached.includes(s.step));
  const latest = Math.max(-1, ...reached.map((step) => shown.findIndex((s) => s.step === step)));
  return (
    <ol className="progress-steps" aria-label={t('progress')}>
      {shown.map(({ step, label }, index) => {
        const state = index < latest ? 'done' : index === latest ? 'current' : 'pending';
        return (
          <li
            key={step}
            className={`progress-step progress-step--${state}`}
            aria-current={state === 'current' ? 'step' : undefined}
            data-step={step}
          >
            <span className="progress-step__marker" aria-hidden="true" />
            {t(label)}
          </li>
        );
      })}
    </ol>
  );
}
