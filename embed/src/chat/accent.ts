import { luminance } from '../shared/contrast';

/**
 * The brand colour in the page's fragment (`color`: v1.js passes its `data-color` there; a direct
 * link may carry one too) becomes `--ha-accent` on the root element: the send button and the
 * visitor's bubbles. Stored as the browser's own `rgb(…)` text, so the property reads exactly as
 * those elements' computed colours do. The text on it is black or white, whichever contrasts more.
 */
export function applyAccent(doc: Document, hash: string): void {
  const color = new URLSearchParams(hash.replace(/^#/, '')).get('color');
  if (!color || !CSS.supports('color', color)) return;
  const probe = doc.createElement('i');
  probe.style.color = color;
  doc.body.append(probe);
  const rgb = getComputedStyle(probe).color;
  probe.remove();
  const root = doc.documentElement;
  root.style.setProperty('--ha-accent', rgb);
  // 0.179: the luminance where black and white text contrast equally (4.58:1).
  root.style.setProperty('--ha-accent-fg', luminance(rgb) > 0.179 ? '#111' : '#fff');
}
