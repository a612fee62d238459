// What the recorder (recorder.ts, in the recorded tab's page) tells the side panel
// (panel-recording.ts), and what the panel tells it: typed once for both ends. A step is the
// person's own action with the element's locator; a field's value comes only for the panel to
// offer keeping (never a password field's: none is read).

import type { LocatedElement } from '../../shared/element-locator';

export type RecordedStep =
  | { do: 'click'; element: LocatedElement }
  | { do: 'fill'; element: LocatedElement; value?: string }
  | { do: 'check'; element: LocatedElement; checked: boolean }
  | { do: 'select'; element: LocatedElement; values: string[] }
  | { do: 'press'; key: string; element?: LocatedElement };

/** Recorder → panel: one step the person took. */
export interface RecordStepMessage {
  type: 'clawd-record';
  step: RecordedStep;
}

/**
 * Recorder → panel, as it starts in a page: is this tab the one recorded? Only the panel
 * recording it answers (true); the recorder holds the person's steps until then, and stops on
 * any other answer or none (it is put into every page while a recording runs, so that it is
 * there before the page's first script, and a tab not recorded keeps its steps to itself).
 */
export const RECORD_ASK = 'clawd-record-ask';

/** Panel → recorder: stop recording in this page. */
export const RECORD_STOP = 'clawd-record-stop';
