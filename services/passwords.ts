import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { z } from 'zod';

/**
 * argon2id at OWASP's first recommended setting (19 MiB, 2 passes, 1 lane): about 20–40 ms of one
 * core per hash, so a sign-in flood costs the server little before its attempt limits refuse it.
 */
const PARAMS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** What a new password must be: 12 to 256 characters (length is what makes a password strong; the cap bounds the hash's input). */
export const newPasswordSchema = z.string().min(12, 'at least 12 characters').max(256, 'at most 256 characters');

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, PARAMS);
}

let dummy: Promise<string> | undefined;

/**
 * Whether `password` matches `hash`. Without a hash (an unknown e-mail, an account with no password
 * yet) it still verifies against a dummy hash of the same cost and answers false, so the answer
 * takes as long whether or not the e-mail is known.
 */
export async function verifyPassword(hash: string | null | undefined, password: string): Promise<boolean> {
  if (!hash) {
    dummy ??= hashPassword(randomBytes(16).toString('hex'));
    await argon2.verify(await dummy, password).catch(() => false);
    return false;
  }
  return argon2.verify(hash, password).catch(() => false);
}
