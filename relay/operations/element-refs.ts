// Which fields of an operation's input name elements by ref, said once: every operation's
// fields are `ref` (the element it acts on), `startRef`/`endRef` (a drag, onto the second) and
// `fields[].ref` (a fill, one per field with its value). The gate's form probe, the action, the
// action log and a call's label all read the elements from here, so they cannot disagree.

/** An element a call names by its ref. */
export interface ElementRef {
  ref: string;
  /** The element something is dropped onto (a drag's end). */
  onto?: true;
  /** One field of a fill, with the value it is given. */
  field?: { value: unknown };
}

/** The elements a call's input names, in the order the call uses them. */
export function elementRefs(input: Record<string, unknown>): ElementRef[] {
  const refs: ElementRef[] = [];
  if (typeof input.ref === 'string') refs.push({ ref: input.ref });
  if (typeof input.startRef === 'string') refs.push({ ref: input.startRef });
  if (typeof input.endRef === 'string') refs.push({ ref: input.endRef, onto: true });
  if (Array.isArray(input.fields))
    for (const field of input.fields as Array<{ ref?: unknown; value?: unknown }>)
      if (typeof field?.ref === 'string') refs.push({ ref: field.ref, field: { value: field.value } });
  return refs;
}
