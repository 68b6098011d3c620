// The market feature's public surface: what other dashboard features may import (eslint.config.js).
export { CandleChart } from './CandleChart.tsx';
export { ChartIcon } from './ChartIcon.tsx';
export { DELAYED_TITLE } from './marketApi.ts';
