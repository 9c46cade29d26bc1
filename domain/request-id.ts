/**
 * The API request id of a turn, carried into Temporal (docs/operations.md: Tracing, "The request id"): the
 * memo key of the workflows a request starts, the header of their activities, and the field every
 * worker log line of the turn carries. Pure names, so the workflow bundle may import them.
 */
export const REQUEST_ID_KEY = 'requestId';
