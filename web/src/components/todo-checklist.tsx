import { useId, useState } from 'react';
import { useI18n } from '../i18n/i18n-context.js';

/** Next steps as a checklist staff can tick off while working (kept in the page only). */
export function TodoChecklist({ actions }: { actions: readonly string[] }) {
  const { t } = useI18n();
  const [done, setDone] = useState<ReadonlySet<number>>(new Set());
  const baseId = useId();
  const toggle = (index: number) =>
    setDone((current) => {
      const next = new Set(current);
      if (!next.delete(index)) next.add(index);
      return next;
    });
  return (
    <section className="todo">
      <h3 className="section-title">{t('todo')}</h3>
      <ul className="todo__list">
        {actions.map((action, index) => {
          const id = `${baseId}-${index}`;
          return (
            <li
              key={action}
              className={done.has(index) ? 'todo__item todo__item--done' : 'todo__item'}
            >
              <input
                id={id}
                type="checkbox"
                checked={done.has(index)}
                onChange={() => toggle(index)}
              />
              <label htmlFor={id}>{action}</label>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
