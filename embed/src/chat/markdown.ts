import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Raw HTML in model markdown is shown as the text it is, like the visitor's own messages.
 * (DOMPurify below would strip it anyway; escaping first also keeps it from ever being parsed.)
 */
const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: { html: ({ text }) => text.replace(/[&<>"']/g, (c) => escapes[c] ?? c) },
  // A backslash shows as written. Models write Windows paths (`C:\new\_dir`, `\\server\share`),
  // regexes and LaTeX (`\{`, `\\`, `\[ … \]`) far more often than they escape markdown on purpose,
  // and a vanished backslash changes what the reply says. A backslash and the punctuation after it
  // stay literal text: the backslash shows, and the character still starts no markup.
  tokenizer: {
    escape(src) {
      const match = /^\\[!-/:-@[-`{-~]/.exec(src);
      return match ? { type: 'escape', raw: match[0], text: match[0] } : false;
    },
  },
});

/**
 * What model markdown may become. No images (an image URL is a way to leak the conversation to
 * a third party, and the CSP would block it anyway), no forms, media, SVG or classes (a model
 * could otherwise borrow the page's own styles to fake UI).
 */
const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'strong', 'em', 'del', 's', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'sup', 'sub', 'kbd',
];
const ALLOWED_ATTR = ['href', 'title', 'start', 'align'];

// Every surviving link opens in a new tab without handing it this window or our address.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** Model (or greeting) markdown as sanitised DOM: nothing in it can run script. */
export function renderMarkdown(markdown: string): DocumentFragment {
  const html = marked.parse(markdown, { async: false });
  return DOMPurify.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR, RETURN_DOM_FRAGMENT: true });
}
