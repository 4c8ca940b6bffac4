// Asks the person at the terminal to confirm something that cannot be undone, by typing a given word.
import { createInterface } from 'node:readline/promises';

/** Whether a person can be asked: both the keyboard and the place the question is shown are a terminal. */
export function canAsk(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

/** Shows the question on stderr (stdout stays the result) and is true only when the answer is exactly `word`. */
export async function confirmByTyping(question: string, word: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(`${question} Type ${word} to confirm: `)).trim() === word;
  } finally {
    rl.close();
  }
}
