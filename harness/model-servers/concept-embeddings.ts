/**
 * Deterministic "semantic" vectors for the test server's `/v1/embeddings`: words of a small
 * lexicon of concepts (refunds, time, shipping, warranty…) land on their concept's dimension,
 * other words on a hashed one. So a paraphrase that shares no word with a text but names the same
 * concepts ends up closer to it than an unrelated text does — what a real embeddings model does,
 * in a form a test can reason about. Not a model: a stand-in with the same wire protocol.
 */

const CONCEPT_DIMENSIONS = 64;

const CONCEPTS: string[][] = [
  ['refund', 'reimburse', 'reimbursement', 'repay', 'repayment', 'money', 'moneyback', 'chargeback'],
  ['long', 'day', 'week', 'time', 'duration', 'soon', 'quickly', 'when', 'until', 'wait'],
  ['ship', 'shipping', 'parcel', 'package', 'dispatch', 'send', 'sent', 'courier', 'deliver', 'delivery', 'post'],
  ['warranty', 'guarantee', 'cover', 'covered', 'defect', 'fault', 'faulty', 'broken', 'repair'],
  ['password', 'login', 'credential', 'sign', 'account', 'locked', 'reset'],
  ['price', 'cost', 'fee', 'charge', 'expensive', 'cheap', 'pay'],
  ['holiday', 'vacation', 'leave', 'annual', 'absence', 'off'],
];

const STOPWORDS = new Set(
  'a an the is are was were be been of to in on at by for with and or but if my your our their i you we they it this that do does did how what can will would should from as have has had not no me get'.split(' '),
);

const conceptOf = new Map<string, number>();
CONCEPTS.forEach((words, i) => words.forEach((w) => conceptOf.set(w, i)));

/** Lower case, letters and digits only, a plural or -ing/-ed ending taken off. */
function stem(word: string): string {
  const w = word.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (conceptOf.has(w)) return w;
  for (const suffix of ['ing', 'ed', 'es', 's']) {
    const base = w.slice(0, -suffix.length);
    if (w.endsWith(suffix) && base.length >= 3 && conceptOf.has(base)) return base;
  }
  return w;
}

function hash(word: string): number {
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The vector of a text (not normalised: the server answers raw values, the client normalises). */
export function conceptVector(text: string): number[] {
  const v = Array.from({ length: CONCEPT_DIMENSIONS }, () => 0);
  const free = CONCEPT_DIMENSIONS - CONCEPTS.length;
  for (const raw of text.split(/\s+/)) {
    const word = stem(raw);
    if (!word || STOPWORDS.has(word)) continue;
    const concept = conceptOf.get(word);
    if (concept !== undefined) v[concept]! += 1;
    else v[CONCEPTS.length + (hash(word) % free)]! += 0.35;
  }
  // An empty text still gets a direction (all-zero vectors have no cosine).
  if (!v.some((x) => x !== 0)) v[CONCEPT_DIMENSIONS - 1] = 1;
  return v;
}

/** Tokens a provider would count, about: the words. */
export function tokenCount(texts: string[]): number {
  return texts.reduce((n, t) => n + Math.max(1, t.split(/\s+/).filter(Boolean).length), 0);
}
