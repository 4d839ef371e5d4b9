/**
 * The links of a link warning (`.link-warning`), as code so a hostile URL reads as text and long
 * ones wrap. The knowledge form (before publishing) and the knowledge actions (after a 201 with
 * `unverifiedLinks`) each wrap it in the live region their moment needs.
 */
export function LinkWarningList({ links }: { links: readonly string[] }) {
  return (
    <ul className="link-warning__list">
      {links.map((link) => (
        <li key={link}>
          <code>{link}</code>
        </li>
      ))}
    </ul>
  );
}
