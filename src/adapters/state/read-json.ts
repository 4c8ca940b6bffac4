// Reading the JSON records memdir keeps under `.mem/`: a missing, unreadable or damaged one reads as absent.
import { readFile } from 'node:fs/promises';

/** The parsed content of a JSON file, or null when it is missing, unreadable or not JSON. */
export async function readJsonOrNull(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return null;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
