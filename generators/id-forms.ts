// A UUID path id in the forms a lax or a strict parser trips on (7: what the caller got wrong is
// never a server error; blind defect blind6-upper-case-bulk-id-500 hands an upper-case bulk id to a
// partition key parser that throws). Each form is made from a valid id. Upper case is still a
// UUIDv7 by the spec's pattern (and by RFC 9562, which reads hex in either case): a target may
// read it as the same id or as an unknown one. The others are no UUIDv7 by the pattern, though a
// lax UUID parser (braces, no hyphens, a URN) reads some of them as the same id.

export interface IdForm {
  /** What was done to the id (a line of the report). */
  what: string;
  value: string;
}

/** The form every path id is sent in: the one a case-sensitive store or parser trips on. */
export const upperCaseForm = (id: string): IdForm => ({ what: 'in upper case', value: id.toUpperCase() });

/** The other forms, one of which each path id is sent in (dealt in turn, so a run sends them all). */
export const OTHER_ID_FORMS: ReadonlyArray<(id: string) => IdForm> = [
  (id) => ({ what: 'in braces', value: `{${id}}` }),
  (id) => ({ what: 'without hyphens', value: id.replace(/-/g, '') }),
  (id) => ({ what: 'with a urn:uuid: prefix', value: `urn:uuid:${id}` }),
  (id) => ({ what: 'with white space around it', value: ` ${id} ` }),
  // The version nibble (the 13th hex digit) set to 4: a valid UUIDv4 where a v7 is asked.
  (id) => ({ what: 'as a UUIDv4', value: `${id.slice(0, 14)}4${id.slice(15)}` }),
  (id) => ({ what: 'one character long', value: id.slice(0, 1) }),
];
