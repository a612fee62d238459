// The person teaches a task by doing it: while they record in a tab of their own browser (the side
// panel's Record), the tab is theirs — every agent's changing call is refused, as in a hand-over —
// and what they save becomes a recipe of the home, which agents list and run like any other. The
// steps are recorded in the page by the extension; here the record of who has the tab, and the save.

import type { Recipe } from '../../shared/recipe';
import { ClawdError } from '../errors';

/** Where recipes are kept (the home's RecipeStore: it never replaces a saved one). */
export interface RecipeSaver {
  save(name: string, recipe: Recipe): Promise<string>;
}

/** How the recording reaches who controls the tab (relay/agent/control-calls.ts). */
export interface RecordingControl {
  /** The person takes the tab (no agent changes it); false when it was theirs already. */
  personRecords(profile: string, targetId: string, reason: string): boolean;
  /** The tab the recording took (for `reason`) goes back to agents, if that is still what holds it. */
  personRecorded(profile: string, targetId: string, reason: string): void;
}

/** What the side panel shows of the last save. */
export interface RecipeSaid {
  /** The panel's id of that save. */
  id: string;
  name: string;
  saved: boolean;
  error?: string;
}

export const RECORDING_REASON = 'You are recording a recipe in this tab';

export class PersonRecording {
  // `${profile}\n${targetId}` of the tabs a recording took from agents: given back when it ends.
  readonly #took = new Set<string>();
  #said: RecipeSaid | undefined;

  constructor(
    private readonly control: RecordingControl,
    private readonly store: RecipeSaver,
    /** The person's tabs: a recording is only ever in one of them. */
    private readonly hasTab: (targetId: string) => boolean,
  ) {}

  /** The last save, for the side panel. */
  get said(): RecipeSaid | undefined {
    return this.#said;
  }

  start(profile: string, targetId: string): void {
    if (!this.hasTab(targetId)) throw new ClawdError('not_found', `no tab ${targetId} of the person's to record in`);
    if (this.control.personRecords(profile, targetId, RECORDING_REASON)) this.#took.add(`${profile}\n${targetId}`);
  }

  /** The recording ended (saved or not): the tab goes back to agents if the recording took it. */
  stop(profile: string, targetId: string): void {
    if (this.#took.delete(`${profile}\n${targetId}`)) this.control.personRecorded(profile, targetId, RECORDING_REASON);
  }

  /**
   * Saves what the person recorded under a name no recipe has; once saved, the recording ends (a
   * refused save leaves it going: the person may name it again). `id`: the panel's, said back.
   */
  async save(profile: string, save: { id: string; name: string; targetId: string }, recipe: Recipe): Promise<string> {
    const { id, name, targetId } = save;
    try {
      const file = await this.store.save(name, recipe);
      this.#said = { id, name, saved: true };
      this.stop(profile, targetId);
      return file;
    } catch (error) {
      this.#said = { id, name, saved: false, error: (error as Error).message };
      throw error;
    }
  }

  /** No side panel is open any more (or the person's browser went): every recording of the profile ends. */
  stopAll(profile: string): void {
    for (const key of [...this.#took]) {
      const [owner, targetId] = key.split('\n') as [string, string];
      if (owner === profile) this.stop(owner, targetId);
    }
  }

  /** The tab is gone: nothing to give back. */
  forget(profile: string, targetId: string): void {
    this.#took.delete(`${profile}\n${targetId}`);
  }
}
