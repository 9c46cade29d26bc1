/**
 * What `tokens` cost at `per1k` credits per 1000 tokens, to six decimals (the precision debits are
 * stored with): the judge's calls, knowledge embeddings and search questions are priced by it.
 */
export function tokenCredits(tokens: number, per1k: number): number {
  return Math.round((tokens / 1000) * per1k * 1e6) / 1e6;
}
