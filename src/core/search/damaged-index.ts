// How a search's reads say a part of the index was refused (damaged, edited, hostile): thrown as
// this, and turned into the search's isError result where the search began (search-reader.ts).
// Portable.

/** A refused part of the index; `reason` says which and why. */
export class DamagedIndex {
  constructor(readonly reason: string) {}
}
