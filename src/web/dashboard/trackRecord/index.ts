// The track record feature's public surface: what other dashboard features may import (eslint.config.js).
export { TrackRecordSection } from './TrackRecordSection.tsx';
export { ALL_RECORDS, recordSourceOf, trackRecordQuery } from './trackRecordApi.ts';
