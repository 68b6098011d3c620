// The dashboard layout's public surface: what dashboard features may import (eslint.config.js).
export { ShowDashboardTab, tabOf, useShowDashboardTab } from './dashboardTabs.tsx';
export { lazyPanel } from './lazyPanel.tsx';
