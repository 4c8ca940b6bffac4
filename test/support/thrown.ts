// Runs a function that must throw an error of the given class, and returns that error for inspection.
import { expect } from 'vitest';

export function thrown<E extends Error>(fn: () => unknown, type: new (...args: never[]) => E): E {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(type);
    return err as E;
  }
  throw new Error(`expected ${type.name} to be thrown`);
}

/** The same for an async function: its promise must reject with an error of the given class. */
export async function thrownAsync<E extends Error>(fn: () => Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(type);
    return err as E;
  }
  throw new Error(`expected ${type.name} to be thrown`);
}
