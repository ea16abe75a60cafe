// Focus on route change: the new screen's heading (or first field), not on the first load, and
// not when the screen focused a field itself.
import { act, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Outlet } from 'react-router';
import { fakeApi } from '../testing/fake-api';
import { renderApp, resetApp, settle } from '../testing/render-app';
import { RouteFocus } from './route-focus';

afterEach(resetApp);

const wait = () => settle(30);

function Layout() {
  return (
    <>
      <RouteFocus />
      <main id="main">
        <Outlet />
      </main>
    </>
  );
}
const ROUTES = [
  {
    element: <Layout />,
    children: [
      { path: '/a', element: <h1>Screen A</h1> },
      { path: '/b', element: <div><h1>Screen B</h1><input aria-label="x" /></div> },
      { path: '/form', element: <form><label>Name <input name="n" /></label></form> },
      { path: '/self', element: <div><h1>Self</h1><input aria-label="pw" data-testid="self" autoFocus /></div> },
    ],
  },
];

describe('RouteFocus', () => {
  it('leaves the first load alone, then focuses the heading on every route change', async () => {
    fakeApi();
    const router = await renderApp(ROUTES, '/a');
    await wait();
    expect(document.activeElement).toBe(document.body);
    act(() => router.navigate('/b'));
    await wait();
    const h1 = screen.getByRole('heading', { name: 'Screen B' });
    expect(document.activeElement).toBe(h1);
    expect(h1.tabIndex).toBe(-1);
    act(() => router.navigate(-1 as unknown as string));
    await wait();
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Screen A' }));
  });

  it('a screen without a heading: its first field', async () => {
    fakeApi();
    const router = await renderApp(ROUTES, '/a');
    await wait(); // the first screen drawn (a change before that is still the first load)
    act(() => router.navigate('/form'));
    await wait();
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Name' }));
  });

  it('a field the screen focused itself keeps the focus', async () => {
    fakeApi();
    const router = await renderApp(ROUTES, '/a');
    await wait(); // the first screen drawn (a change before that is still the first load)
    act(() => router.navigate('/self'));
    await wait();
    expect(document.activeElement).toBe(screen.getByTestId('self'));
  });
});
