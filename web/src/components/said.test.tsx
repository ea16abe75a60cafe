// A confirmation said where the person is: always a live region, filled when said; with `focus`
// the focus moves to it a tick later (after a closing dialog gave it back), again when said again.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Said, useSaid } from './said';

function Harness({ focus }: { focus: boolean }) {
  const { said, say, clear } = useSaid();
  return (
    <>
      <button type="button" onClick={() => say('Done.')}>
        act
      </button>
      <button type="button" onClick={clear}>
        clear
      </button>
      <Said said={said} testId="said" focus={focus} />
    </>
  );
}
const tick = () => act(async () => void (await new Promise((r) => setTimeout(r, 5))));

afterEach(cleanup);

describe('Said', () => {
  it('is an empty polite status until said, then shows the words', async () => {
    render(<Harness focus={false} />);
    const said = screen.getByTestId('said');
    expect(said.getAttribute('role')).toBe('status');
    expect(said.textContent).toBe('');
    expect(said.className).toBe('sr-only');
    fireEvent.click(screen.getByText('act'));
    await tick();
    expect(said.textContent).toBe('Done.');
    expect(said.className).toContain('notice');
    // Without `focus` the focus stays where the person is.
    expect(document.activeElement).not.toBe(said);
    fireEvent.click(screen.getByText('clear'));
    expect(said.textContent).toBe('');
  });

  it('with focus: takes the focus once said, and again when the same words are said again', async () => {
    render(<Harness focus />);
    const said = screen.getByTestId('said');
    const button = screen.getByText('act');
    button.focus();
    fireEvent.click(button);
    await tick();
    expect(document.activeElement).toBe(said);
    expect(said.getAttribute('tabindex')).toBe('-1');
    button.focus();
    fireEvent.click(button);
    await tick();
    expect(document.activeElement).toBe(said);
  });
});
