// A plain-text bounce format: how one mail system's non-DSN bounce starts (its intro, which tells
// a bounce from any other mail) and where its explanation stops and the returned original starts.
// Where the failed addresses and the diagnostics stand is read the same way for every format
// (plain-bounce.ts): an address at the start of a line, then the reply or the words after it.

export interface BounceFormat {
  /** The mail system (family) this format is of. */
  name: string;
  /** Text only this system's bounces start with (anchored or distinctive wording). */
  intro: RegExp;
  /** Where the quoted original starts, when the system marks it. */
  original?: RegExp;
  /** The reason stands above the list of addresses (Verizon): read it when an address's lines say nothing. */
  reasonAbove?: boolean;
  /** The bounce names no full address (GroupWise): its finding is about the message's only recipient. */
  namesNoAddress?: boolean;
}
