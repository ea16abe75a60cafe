// A card of "My company": a section labelled by its heading that says the errors of the controls
// used in it (FormError finds it as it finds the account centre's sections; `data-current`: always
// shown, the page has no one-section-at-a-time menu).
import type { ReactNode } from 'react';
import { FormError } from '../../components/form-error';

export function Card({ id, testId, children, ...rest }: { id: string; testId: string; children: ReactNode; 'data-role'?: string }) {
  return (
    <section className="card centre-section" data-current aria-labelledby={`${id}-title`} data-testid={testId} {...rest}>
      <FormError testId={`${testId}-error`} />
      {children}
    </section>
  );
}
