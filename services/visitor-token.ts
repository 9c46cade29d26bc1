import { errors as joseErrors, jwtVerify } from 'jose';
import { z } from 'zod';

/** Clocks of the customer's backend and ours may differ a little. */
const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * The longest a token may still have to run when we check it (docs/publishing.md): a copied token
 * works for anyone until its `exp`, so a leak is bounded by this, whatever the signer chose.
 */
const MAX_TOKEN_LIFETIME_SECONDS = 24 * 60 * 60;

// eslint-disable-next-line no-control-regex
const controlChars = /[\u0000-\u001f\u007f]/;
const claimText = (max: number) => z.string().max(max).refine((v) => !controlChars.test(v), 'must not contain control characters');

/**
 * The claims we read; others (`iss`, `aud`, …) are the signer's business. `sub` is compared exactly
 * as signed: surrounding whitespace is refused rather than trimmed, so a token signed for
 * `" alice "` never verifies `alice`. jose has checked that `exp` and `iat` are numbers.
 */
const visitorClaimsSchema = z.object({
  sub: claimText(200)
    .min(1, 'must not be empty')
    .refine((v) => v.trim() === v, 'must not start or end with whitespace: sign the visitor id exactly as the visitor gives it'),
  name: claimText(200).optional(),
  email: claimText(320).optional(),
  exp: z.number(),
  iat: z.number().optional(),
});

/** Who a valid token says the visitor is. */
export interface VerifiedVisitor {
  id: string;
  name?: string;
  email?: string;
}

/** Why a token was refused, for the visitor's developer (never the secret, never the token). */
export type TokenProblem = { problem: string };

/**
 * Checks a visitor token: an HS256 JWT signed with one of `secrets` (the current identity secret,
 * then the previous one during its grace period), with `exp` in the future but at most
 * MAX_TOKEN_LIFETIME_SECONDS ahead, `iat` (when present) not in the future, and a `sub`. Anything
 * else — another algorithm (`none` included), a bad signature, a missing or past `exp` — is a problem.
 */
export async function verifyVisitorToken(token: string, secrets: string[]): Promise<VerifiedVisitor | TokenProblem> {
  let last: TokenProblem = { problem: 'the agent has no identity secret' };
  for (const secret of secrets) {
    try {
      const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
        algorithms: ['HS256'],
        requiredClaims: ['exp', 'sub'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      const claims = visitorClaimsSchema.safeParse(payload);
      if (!claims.success) {
        const issue = claims.error.issues[0]!;
        return { problem: `claim ${issue.path.join('.')}: ${issue.message}` };
      }
      const { sub, name, email, exp, iat } = claims.data;
      const timing = timingProblem(exp, iat);
      if (timing) return timing;
      return { id: sub, ...(name !== undefined ? { name } : {}), ...(email !== undefined ? { email } : {}) };
    } catch (err) {
      last = { problem: describe(err) };
      // Only a signature that does not match may match the next secret; any other problem is the token's.
      if (!(err instanceof joseErrors.JWSSignatureVerificationFailed)) return last;
    }
  }
  return last;
}

/** `exp` and `iat` against our clock, each with CLOCK_TOLERANCE_SECONDS (jose checks only that `exp` is not past). */
function timingProblem(exp: number, iat: number | undefined): TokenProblem | undefined {
  const now = Date.now() / 1000;
  if (exp > now + MAX_TOKEN_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS) {
    return { problem: `claim exp: more than ${MAX_TOKEN_LIFETIME_SECONDS / 3600} h ahead; a visitor token may live at most ${MAX_TOKEN_LIFETIME_SECONDS / 3600} h, sign it with a shorter exp` };
  }
  if (iat !== undefined && iat > now + CLOCK_TOLERANCE_SECONDS) {
    return { problem: `claim iat: in the future (more than ${CLOCK_TOLERANCE_SECONDS} s ahead of our clock); check your signing server's clock` };
  }
  return undefined;
}

function describe(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'the token has expired (exp)';
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return "the signature does not match the agent's identity secret";
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'the token must be signed with HS256';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `claim ${err.claim}: ${err.reason === 'missing' ? 'missing' : 'invalid'}`;
  return 'not a signed JWT';
}
