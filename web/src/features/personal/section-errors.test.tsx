// An error of the default handling from a button of a centre section (issue 34 item 5): said
// atop that section, focused, not in a toast; a form with its own place inside keeps its errors.
import { act, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FormError } from '../../components/form-error';
import { handleError } from '../../lib/api';
import * as toast from '../../lib/toast';
import { renderApp, resetApp } from '../../testing/render-app';
import { CentreSection } from './centre-nav';

afterEach(() => {
  resetApp();
  for (const t of toast.current()) toast.dismiss(t.id);
  document.body.click();
});

const network = { reason: 'NETWORK_ERROR' as const, message: '', code: 0 };

describe('errors in the section used', () => {
  it('an error from a control of a centre section is said atop that section, focused; a form with its own place keeps it', async () => {
    const element = (
      <CentreSection id="sessions">
        <h2>Devices</h2>
        <button type="button">End this session</button>
        <form>
          <FormError testId="own" />
          <button type="button">Save</button>
        </form>
      </CentreSection>
    );
    await renderApp([{ path: '/:language/personal/secure', element }], '/en-US/personal/secure');
    fireEvent.click(screen.getByText('End this session'));
    act(() => handleError(network));
    const place = screen.getByTestId('sessions-error');
    expect(place.querySelector('[role="alert"]')!.textContent).toBe('Network error, please check your connection');
    expect(document.activeElement).toBe(place);
    expect(toast.current()).toEqual([]);
    fireEvent.click(screen.getByText('Save'));
    act(() => handleError(network));
    expect(screen.getByTestId('own').querySelector('[role="alert"]')!.textContent).toBe('Network error, please check your connection');
    expect(document.activeElement).toBe(screen.getByTestId('own'));
  });
});
