// Shortens the turns of an ingested conversation as a context block shows them: "**ann** (13:56): text"
// becomes "ann: text" when the turn's time is the one last shown (a session's turns mostly share it), else
// "ann (13:56): text"; a session heading leaves out the date its memory's header already says. The words of the
// turn stay as written. Pure.

// A rendered turn: its role in bold, then its time when the transcript had one.
const TURN = /^\*\*([^*\n]{1,80})\*\*(?: \((\d{2}:\d{2})\))?: /;
// The time a session heading starts at ("Session 2023-05-08 13:56 UTC · source").
const HEADING_TIME = /\b\d{4}-\d{2}-\d{2} (\d{2}:\d{2}) UTC\b/;

/** The time a heading says its turns start at, if any. */
export const headingTime = (heading: string): string | undefined => HEADING_TIME.exec(heading)?.[1];

/**
 * A session heading as shown under a memory dated `date`: "Session 2023-05-08 13:56 UTC · source" becomes
 * "Session 13:56 UTC · source" when the date is the memory's (a day log's sessions all are); any other heading as is.
 */
export const sessionHeading = (heading: string, date: string): string =>
  heading.startsWith(`Session ${date} `) ? `Session ${heading.slice(`Session ${date} `.length)}` : heading;

/** The turn as shown after a line at `lastTime`, and the time it leaves shown (the text as is when it is no turn). */
export function compactTurn(text: string, lastTime: string | undefined): { text: string; time: string | undefined } {
  const m = TURN.exec(text);
  if (!m) return { text, time: lastTime };
  const time = m[2];
  const when = time && time !== lastTime ? ` (${time})` : '';
  return { text: `${m[1]}${when}: ${text.slice(m[0].length)}`, time: time ?? lastTime };
}
