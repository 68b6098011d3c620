// The scanner feature's public surface: what other dashboard features may import (eslint.config.js).
// The panel itself is loaded on demand by the dashboard (pages/DashboardPage.tsx imports
// ScannerPanel.tsx lazily, as it does the alerts column), so nothing here pulls its code into
// the dashboard's first paint.
export { ruleFromScan } from './scanRule.ts';
export type { StudyTarget } from './StudyView.tsx';
