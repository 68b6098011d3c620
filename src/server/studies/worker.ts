// A worker of the studies' pool (pool.ts): runs one setup study (study.ts) on the bars it is
// given and answers the study, so a 50-symbol, 2-year study never holds the server's event loop.
// It keeps nothing between tasks.
import type { StudyResponse } from '../../shared/schemas/scans.ts';
import { runStudy, type StudyInput } from './study.ts';

export default function runStudyTask(task: StudyInput): StudyResponse {
  return runStudy(task);
}
