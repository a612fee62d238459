// How clawd names an element in one line — `e12 button "Save"` — wherever it says one: a trace's
// action, the person's question, an action's error, the action log's lines in the side panel and
// the live view. One function, so every place writes it alike; the caller says how the page's
// words (the name) are quoted (as JSON by default, or fenced where an agent reads them).

/** An element as a snapshot showed it: its ref, and the role and name it had there (when known). */
export interface NamedElement {
  ref: string;
  role?: string | undefined;
  name?: string | undefined;
}

export function elementLine(
  element: NamedElement,
  quote: (name: string) => string = (name) => JSON.stringify(name),
): string {
  const role = element.role ? ` ${element.role}` : '';
  return `${element.ref}${role}${element.name ? ` ${quote(element.name)}` : ''}`;
}
