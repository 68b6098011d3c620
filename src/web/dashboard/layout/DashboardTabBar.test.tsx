// @vitest-environment jsdom
// The dashboard's tab bar on a phone: an ARIA tablist whose tabs name the panels they show,
// with a roving tab index moved by the arrow keys, Home and End; and the tab lookup the guided
// tour uses to open the tab that holds a step's target.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { DashboardTabBar } from './DashboardTabBar.tsx';
import { tabOf, type DashboardTab } from './dashboardTabs.tsx';

afterEach(cleanup);

function Harness() {
  const [tab, setTab] = useState<DashboardTab>('chart');
  return (
    <div>
      <DashboardTabBar tab={tab} onChange={setTab} />
      <p data-testid="shown">{tab}</p>
    </div>
  );
}

describe('DashboardTabBar', () => {
  it('lists Chart, Alerts, AI, Files and Scanner, each controlling its panel, with one tab selected', () => {
    render(<Harness />);
    const tabs = screen.getAllByRole('tab');
    expect(tabs.map((tab) => tab.textContent)).toEqual(['Chart', 'Alerts', 'AI', 'Files', 'Scanner']);
    expect(tabs.map((tab) => tab.getAttribute('aria-controls'))).toEqual([
      'dashboard-tab-chart',
      'dashboard-tab-alerts',
      'dashboard-tab-ai',
      'dashboard-tab-files',
      'dashboard-tab-scanner',
    ]);
    expect(tabs.map((tab) => tab.getAttribute('aria-selected'))).toEqual(['true', 'false', 'false', 'false', 'false']);
    expect(tabs.map((tab) => tab.tabIndex)).toEqual([0, -1, -1, -1, -1]);
  });

  it('a click chooses a tab', () => {
    render(<Harness />);
    fireEvent.click(screen.getByRole('tab', { name: 'Alerts' }));
    expect(screen.getByTestId('shown').textContent).toBe('alerts');
    expect(screen.getByRole('tab', { name: 'Alerts' }).getAttribute('aria-selected')).toBe('true');
  });

  it('arrow keys, Home and End move the choice and the focus, wrapping around', () => {
    render(<Harness />);
    const chart = screen.getByRole('tab', { name: 'Chart' });
    chart.focus();
    fireEvent.keyDown(chart, { key: 'ArrowLeft' });
    expect(screen.getByTestId('shown').textContent).toBe('scanner');
    expect(document.activeElement).toBe(screen.getByRole('tab', { name: 'Scanner' }));
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowRight' });
    expect(screen.getByTestId('shown').textContent).toBe('chart');
    fireEvent.keyDown(document.activeElement!, { key: 'End' });
    expect(screen.getByTestId('shown').textContent).toBe('scanner');
    fireEvent.keyDown(document.activeElement!, { key: 'Home' });
    expect(screen.getByTestId('shown').textContent).toBe('chart');
  });
});

describe('tabOf', () => {
  it('names the tab whose wrapper holds an element, or null outside the tabs', () => {
    document.body.innerHTML =
      '<div data-dashboard-tab="alerts"><section><h2 id="inside">Alerts</h2></section></div><p id="outside"></p>';
    expect(tabOf(document.getElementById('inside'))).toBe('alerts');
    expect(tabOf(document.getElementById('outside'))).toBeNull();
    expect(tabOf(null)).toBeNull();
  });
});
