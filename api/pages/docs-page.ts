/**
 * `GET /docs`: the OpenAPI document (`/v1/openapi.json`) rendered by Redoc, whose bundle we serve
 * ourselves (`/docs/redoc.js`, copied into embed/dist at build). Redoc's custom element reads the
 * document by URL, so the page needs no inline script.
 */
export function renderDocsPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hosted Agents API</title>
<style>
/* Redoc breaks inline code anywhere; an error code cut in two reads as two words. */
td:first-child > code { white-space: nowrap; word-break: normal; }
</style>
</head>
<body>
<redoc spec-url="/v1/openapi.json" hide-hostname="true" path-in-middle-panel="true" expand-responses="200,201"></redoc>
<script src="/docs/redoc.js"></script>
</body>
</html>
`;
}

/**
 * Own origin only, except what Redoc needs to run: inline styles (styled-components), a blob
 * worker for its search index, and data: images. Nothing leaves for another host — Redoc's
 * footer logo on its CDN stays blocked.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
