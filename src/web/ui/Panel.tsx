// A dashboard panel: a <section> on the panel background, labelled by its <h2> heading. The
// heading stands alone, or shares a header row with the panel's controls (`header`).
import type { HTMLAttributes, ReactNode } from 'react';

export function Panel({
  headingId,
  title,
  className = '',
  headerClassName = 'flex items-center justify-between gap-2',
  titleClassName = '',
  header,
  children,
  ...section
}: {
  /** The heading's id, which labels the section (aria-labelledby). */
  headingId: string;
  title: ReactNode;
  /** Layout classes of the section (its size, flex direction); the panel look is added. */
  className?: string;
  /** Classes of the header row, when there is one. */
  headerClassName?: string;
  /** Classes added to the heading's own. */
  titleClassName?: string;
  /** Controls beside the heading, in one row with it. */
  header?: ReactNode;
  children?: ReactNode;
} & Omit<HTMLAttributes<HTMLElement>, 'title' | 'className' | 'children'>) {
  const heading = (
    <h2 id={headingId} className={`${titleClassName} text-lg font-semibold text-white`.trim()}>
      {title}
    </h2>
  );
  return (
    <section className={`${className} rounded-lg bg-gray-900 p-3`.trim()} aria-labelledby={headingId} {...section}>
      {header === undefined ? (
        heading
      ) : (
        <div className={headerClassName}>
          {heading}
          {header}
        </div>
      )}
      {children}
    </section>
  );
}
