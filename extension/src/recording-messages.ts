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

/** Panel → recorder: stop recording in this page. */
export const RECORD_STOP = 'clawd-record-stop';
