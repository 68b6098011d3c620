// The guided tour's tooltips and spotlight: react-joyride 3 with docs/SPEC.md's tour settings.
// GuidedTour (the steps, what is shown when) fetches this module the first time the tour starts,
// so the dashboard does not load joyride (and its positioning library) before anyone asks for
// the tour. Joyride's events come back to GuidedTour as three plain outcomes.
import { ACTIONS, EVENTS, Joyride, STATUS, type EventData, type Step } from 'react-joyride';
import { TOUR } from '../../../shared/constants.ts';

export interface TourTooltipsProps {
  steps: Step[];
  run: boolean;
  stepIndex: number;
  /** Finished, skipped, Escape or a click on the overlay. */
  onEnd: () => void;
  /** The step at `index` is done (or its target is gone): move `direction`. */
  onStepDone: (index: number, direction: 1 | -1) => void;
}

export function TourTooltips({ steps, run, stepIndex, onEnd, onStepDone }: TourTooltipsProps) {
  const onEvent = (data: EventData) => {
    const { action, index, status, type } = data;
    if (
      type === EVENTS.TOUR_END ||
      status === STATUS.FINISHED ||
      status === STATUS.SKIPPED ||
      action === ACTIONS.SKIP ||
      // Escape and a click on the overlay close the tooltip: that ends the tour.
      action === ACTIONS.CLOSE
    ) {
      onEnd();
      return;
    }
    if (type === EVENTS.STEP_AFTER || type === EVENTS.TARGET_NOT_FOUND)
      onStepDone(index, action === ACTIONS.PREV ? -1 : 1);
  };

  const total = steps.length;
  return (
    <Joyride
      steps={steps}
      run={run}
      stepIndex={stepIndex}
      continuous
      onEvent={onEvent}
      // The last button keeps the progress the Next buttons show ('Finish (9 of 9)').
      locale={{ back: 'Back', last: `Finish (${total} of ${total})`, next: 'Next', skip: 'Skip tour' }}
      options={{
        buttons: ['back', 'primary', 'skip'],
        showProgress: true,
        zIndex: TOUR.zIndex,
        scrollOffset: TOUR.scrollOffset,
        primaryColor: TOUR.primaryColor,
        backgroundColor: TOUR.tooltipBackground,
        textColor: '#f9fafb',
        arrowColor: TOUR.tooltipBackground,
        dismissKeyAction: 'close',
        overlayClickAction: 'close',
        skipScroll: true,
        // Fits a 390px phone with a margin on each side.
        width: 'min(380px, calc(100vw - 24px))',
      }}
      // Joyride writes the primary button in the tooltip's background colour (grey on indigo,
      // 2.3:1); white on indigo-600 reads at 6.3:1.
      styles={{
        overlay: { transition: `opacity ${TOUR.spotlightFadeSeconds}s` },
        buttonPrimary: { color: '#ffffff' },
      }}
    />
  );
}
