import { createHash, timingSafeEqual } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import { AppError } from '../../domain/errors';
import { fromLoopbackPeer } from '../../infra/metrics-access';
import type { ApiContext } from '../context';
import type { ApiRouter } from '../routing';

/**
 * The codec endpoint of Temporal's "codec server" protocol, so the Temporal UI and CLI can show
 * payloads the PAYLOAD_KEY codec encrypted: `POST /v1/codec/decode` and `/encode` take and answer
 * `{ payloads: [{ metadata: { key: base64 }, data: base64 }] }`. Off (404, before any body is read)
 * unless CODEC_TOKEN is set (or `start` opened it to its dev server's UI: below); every other call needs `Authorization: Bearer <CODEC_TOKEN>` — an operator credential, not a
 * workspace API key: decoding shows every workspace's conversations.
 */
const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'base64');
const wirePayload = z.object({ metadata: z.record(z.string(), base64).optional(), data: base64.optional() }).meta({ id: 'CodecPayload' });
const payloadsSchema = z.object({ payloads: z.array(wirePayload).max(10_000) }).meta({ id: 'CodecPayloads' });
type WirePayload = z.infer<typeof wirePayload>;

const fromWire = (p: WirePayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data ?? '', 'base64'),
});
const toWire = (p: Payload): WirePayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Under `start` with the embedded dev server only (cli/commands/start.ts passes `localUIOrigin`;
 * `hosted-agents api` never does), the dev server's UI may call without a token: a request from a
 * loopback peer (the socket, never X-Forwarded-For; not through a proxy) whose Origin is the UI's.
 * Threat: a page of another origin cannot forge Origin, and a remote caller is not on loopback;
 * what stays open is a local process that sets Origin — it can already read DATA_DIR's keys.
 */
function openToLocalUI(ctx: ApiContext, localUIOrigin: string | undefined): boolean {
  return localUIOrigin !== undefined && ctx.get('Origin') === localUIOrigin && fromLoopbackPeer(ctx.req);
}

function authorize(ctx: ApiContext, token: string | undefined, localUIOrigin: string | undefined): void {
  if (openToLocalUI(ctx, localUIOrigin)) return;
  if (token === undefined && localUIOrigin === undefined) throw new AppError('not_found', 'no such route (the codec endpoint is off: set CODEC_TOKEN)');
  const given = /^Bearer (.+)$/.exec(ctx.get('Authorization'))?.[1] ?? '';
  // Compared as digests: equal lengths, so the comparison takes the same time whatever was sent.
  if (token === undefined || !timingSafeEqual(digest(given), digest(token))) throw new AppError('invalid_codec_token', 'Authorization: Bearer <CODEC_TOKEN> is missing or wrong');
}

export function codecRoutes(r: ApiRouter, deps: { codec: PayloadCodec | undefined; token: string | undefined; localUIOrigin?: string | undefined }): void {
  for (const direction of ['decode', 'encode'] as const) {
    r.add(
      {
        method: 'post', path: `/v1/codec/${direction}`, operationId: `codec${direction === 'decode' ? 'Decode' : 'Encode'}`, tag: 'Operations', auth: 'none',
        summary: `${direction === 'decode' ? 'Decrypts' : 'Encrypts'} Temporal payloads for the Temporal UI and CLI (Authorization: Bearer <CODEC_TOKEN>)`,
        body: payloadsSchema,
        response: { status: 200, description: 'The payloads, in order', schema: payloadsSchema },
        errors: ['invalid_codec_token', 'not_found'],
        // Before the body: a caller without the token costs no read or parse of what it sends.
        authorize: (ctx) => authorize(ctx, deps.token, deps.localUIOrigin),
      },
      async (_ctx, { body }) => {
        const payloads = body.payloads.map(fromWire);
        // Without PAYLOAD_KEY nothing is encrypted: both directions are the identity.
        if (!deps.codec) return { payloads: payloads.map(toWire) };
        try {
          const out = direction === 'decode' ? await deps.codec.decode(payloads) : await deps.codec.encode(payloads);
          return { payloads: out.map(toWire) };
        } catch {
          throw new AppError('invalid_request', 'payloads: a payload could not be decrypted with the PAYLOAD_KEY ring (altered, or under a key no longer in it)');
        }
      },
    );
  }
}
