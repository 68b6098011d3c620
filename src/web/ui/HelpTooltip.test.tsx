// @vitest-environment jsdom
// The help bubble shows on hover or focus (CSS group-hover / group-focus-within); Escape hides
// it while the pointer or focus stays (WCAG 1.4.13), and leaving and coming back shows it again.
// jsdom has no CSS, so the test reads whether the bubble still carries its "show" classes.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { HelpTooltip } from './HelpTooltip.tsx';

afterEach(cleanup);

const SHOWS = ['group-hover:visible', 'group-focus-within:visible'];

function showsOnHoverAndFocus(): boolean {
  const classes = screen.getByRole('tooltip', { hidden: true }).className.split(/\s+/);
  return SHOWS.every((name) => classes.includes(name));
}

describe('HelpTooltip', () => {
  it('Escape hides the focused bubble until focus leaves and comes back', () => {
    render(<HelpTooltip>Add symbols as EXCHANGE:SYMBOL.</HelpTooltip>);
    const button = screen.getByRole('button', { name: 'Help' });
    expect(screen.getByRole('tooltip', { hidden: true }).className.split(/\s+/)).toContain('invisible');
    fireEvent.focus(button);
    expect(showsOnHoverAndFocus()).toBe(true);
    fireEvent.keyDown(button, { key: 'Escape' });
    expect(showsOnHoverAndFocus()).toBe(false);
    fireEvent.blur(button);
    fireEvent.focus(button);
    expect(showsOnHoverAndFocus()).toBe(true);
  });

  it('Escape anywhere hides the hovered bubble; an Escape while it is not shown changes nothing', () => {
    render(
      <div>
        <button type="button">Elsewhere</button>
        <HelpTooltip>Explained</HelpTooltip>
      </div>,
    );
    fireEvent.keyDown(screen.getByRole('button', { name: 'Elsewhere' }), { key: 'Escape' });
    expect(showsOnHoverAndFocus()).toBe(true);
    const bubble = screen.getByRole('button', { name: 'Help' }).parentElement!;
    fireEvent.mouseEnter(bubble);
    fireEvent.keyDown(screen.getByRole('button', { name: 'Elsewhere' }), { key: 'Escape' });
    expect(showsOnHoverAndFocus()).toBe(false);
    fireEvent.mouseLeave(bubble);
    expect(showsOnHoverAndFocus()).toBe(true);
  });
});
