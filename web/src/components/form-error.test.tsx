// An error of the default handling while a form without use-form.ts is in use (issue 34 item 5):
// said inside that form, in an alert that takes the focus, not as a toast at the top; gone when
// the form is edited. Outside any form it is a toast still.
import { act, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { handleError } from '../lib/api';
import * as toast from '../lib/toast';
import { renderApp, resetApp } from '../testing/render-app';
import { FormError } from './form-error';

afterEach(() => {
  resetApp();
  for (const t of toast.current()) toast.dismiss(t.id);
  document.body.click();
});

const network = { reason: 'NETWORK_ERROR' as const, message: '', code: 0 };

describe('FormError', () => {
  it('says the error of the form in use inside it, focused; the next edit clears it; elsewhere a toast', async () => {
    const element = (
      <>
        <form data-testid="profile">
          <FormError />
          <input name="company" aria-label="Company" />
          <button type="button">Save</button>
        </form>
        <button type="button">Elsewhere</button>
      </>
    );
    await renderApp([{ path: '/:language/personal/info', element }], '/en-US/personal/info');
    fireEvent.click(screen.getByText('Save'));
    act(() => handleError(network));
    const place = screen.getByTestId('form-error');
    expect(place.querySelector('[role="alert"]')!.textContent).toBe('Network error, please check your connection');
    expect(document.activeElement).toBe(place);
    expect(toast.current()).toEqual([]);
    fireEvent.input(screen.getByLabelText('Company'), { target: { value: 'Acme' } });
    expect(place.querySelector('[role="alert"]')!.textContent).toBe('');
    fireEvent.click(screen.getByText('Elsewhere'));
    act(() => handleError(network));
    expect(toast.current().map((t) => t.kind)).toEqual(['error']);
  });

});
